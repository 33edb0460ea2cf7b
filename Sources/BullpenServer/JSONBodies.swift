import BullpenAPI
import Foundation
import Vapor

extension Request {
    /// Decodes the JSON body as `T`, refusing fields the type does not have (so that nobody can
    /// slip `cash` into a rename) and naming the field at fault in the error.
    func decodeJSON<T: Decodable>(_ type: T.Type, allowedKeys: Set<String>) throws -> T {
        guard let buffer = body.data, buffer.readableBytes > 0 else {
            throw APIError(.badRequest, "invalid_json", "The request needs a JSON body.")
        }
        let data = Data(buffer: buffer)
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw APIError(.badRequest, "invalid_json", "The body is not valid JSON.")
        }
        guard let fields = object as? [String: Any] else {
            throw APIError.validation("The body must be a JSON object.")
        }
        if let unknown = fields.keys.sorted().first(where: { !allowedKeys.contains($0) }) {
            throw APIError.validation("The field '\(unknown)' is not accepted here.")
        }
        return try APIContract.makeDecoder().decode(T.self, from: data)
    }
}

/// A JSON response with the wire conventions.
func jsonResponse(_ value: some Encodable, status: HTTPResponseStatus = .ok) throws -> Response {
    let body = try APIContract.makeEncoder().encode(value)
    var headers = HTTPHeaders()
    headers.contentType = .json
    return Response(status: status, headers: headers, body: .init(data: body))
}
