import BullpenAPI
import Foundation
import Vapor
import Yams

/// The query parameters each operation accepts, read from `openapi.yaml`: the contract is the
/// one place they are declared, and a request with any other one is refused (400
/// `unknown_parameter`, naming the allowed ones) instead of silently ignored.
struct QueryParameterRules: Sendable {
    /// `METHOD /path/{param}` → the names of its query parameters.
    let allowed: [String: Set<String>]

    /// The rules of several documents together (each path is in one of them).
    init(contracts: [String]) throws {
        var allowed: [String: Set<String>] = [:]
        for contract in contracts { allowed.merge(try QueryParameterRules(contract: contract).allowed) { first, _ in first } }
        self.allowed = allowed
    }

    init(contract: String) throws {
        guard let document = try Yams.load(yaml: contract) as? [String: Any],
              let paths = document["paths"] as? [String: Any]
        else { throw ConfigurationError(problems: ["openapi.yaml has no paths"]) }
        let shared = ((document["components"] as? [String: Any])?["parameters"] as? [String: Any]) ?? [:]
        func queryNames(_ list: Any?) -> Set<String> {
            var names: Set<String> = []
            for item in (list as? [Any]) ?? [] {
                guard var parameter = item as? [String: Any] else { continue }
                if let ref = parameter["$ref"] as? String, let name = ref.split(separator: "/").last,
                   let resolved = shared[String(name)] as? [String: Any] {
                    parameter = resolved
                }
                if parameter["in"] as? String == "query", let name = parameter["name"] as? String { names.insert(name) }
            }
            return names
        }
        var allowed: [String: Set<String>] = [:]
        for (path, item) in paths {
            guard let item = item as? [String: Any] else { continue }
            let common = queryNames(item["parameters"])
            for (method, operation) in item {
                guard let operation = operation as? [String: Any], method != "parameters" else { continue }
                allowed["\(method.uppercased()) \(path)"] = common.union(queryNames(operation["parameters"]))
            }
        }
        self.allowed = allowed
    }

    /// `METHOD /path/{param}` of a routed request.
    static func operation(_ route: Route) -> String {
        let path = route.path.map { component -> String in
            switch component {
            case .constant(let text): text
            case .parameter(let name): "{\(name)}"
            case .anything: "*"
            case .catchall: "**"
            }
        }.joined(separator: "/")
        return "\(route.method.rawValue) /\(path)"
    }
}

/// Refuses query parameters the contract does not list for the routed operation.
struct QueryParameterMiddleware: AsyncMiddleware {
    let rules: QueryParameterRules

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        if let route = request.route, let query = request.url.query, !query.isEmpty {
            let allowed = rules.allowed[QueryParameterRules.operation(route)] ?? []
            let given = URLComponents(string: "?" + query)?.queryItems?.map(\.name) ?? []
            if let unknown = given.first(where: { !allowed.contains($0) }) {
                let accepted = allowed.isEmpty ? "none" : allowed.sorted().joined(separator: ", ")
                throw APIError(.unknownParameter, "The query parameter '\(unknown)' is not accepted here; accepted: \(accepted).")
            }
            // Each parameter is one value (lists are comma-separated): a second copy is refused, not dropped.
            var seen = Set<String>()
            if let repeated = given.first(where: { !seen.insert($0).inserted }) {
                throw APIError.validation("The query parameter '\(repeated)' is given more than once; give it once.")
            }
        }
        return try await next.respond(to: request)
    }
}
