import Foundation

/// A `.env` file: `NAME=value` lines, `#` comments, optional `export ` and quotes. Its values
/// fill in what the environment does not set, so the order of precedence is flags, then the
/// environment, then `.env`, then the defaults.
public struct DotEnvFile: Sendable, Equatable {
    public var values: [String: String]
    /// Lines that could not be read, as `.env:LINE: reason`.
    public var problems: [String]

    /// Parses the text of a `.env` file. Never fails: bad lines are listed in ``problems``.
    public init(parsing text: String, name: String = ".env") {
        var values: [String: String] = [:], problems: [String] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasSuffix("\r") { line.removeLast() }
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("export ") { line = String(line.dropFirst("export ".count)).trimmingCharacters(in: .whitespaces) }
            guard let equals = line.firstIndex(of: "=") else {
                problems.append("\(name):\(index + 1): expected NAME=value")
                continue
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            guard let first = key.unicodeScalars.first, first == "_" || CharacterSet.letters.contains(first),
                  key.unicodeScalars.allSatisfy({ $0 == "_" || CharacterSet.alphanumerics.contains($0) && $0.isASCII })
            else {
                problems.append("\(name):\(index + 1): '\(key)' is not a variable name")
                continue
            }
            var value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if let quote = value.first, quote == "\"" || quote == "'" {
                guard value.count >= 2, value.last == quote else {
                    problems.append("\(name):\(index + 1): the value of \(key) has no closing quote")
                    continue
                }
                value = String(value.dropFirst().dropLast())
            } else if let comment = value.range(of: " #") {
                value = value[..<comment.lowerBound].trimmingCharacters(in: .whitespaces)
            }
            values[key] = value
        }
        self.values = values
        self.problems = problems
    }

    /// The file at `path`, or nil when there is none.
    public static func load(path: String) throws -> DotEnvFile? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return DotEnvFile(parsing: try String(contentsOfFile: path, encoding: .utf8), name: path)
    }

    /// `environment` with this file's values filled in where it has none (empty counts as none).
    public func filling(_ environment: [String: String]) -> [String: String] {
        environment.merging(values.filter { !$0.value.isEmpty }) { current, fromFile in current.isEmpty ? fromFile : current }
    }

    /// Sets this file's values in the process environment where it has none, so that everything
    /// reading the environment (the log level too) sees them.
    public func applyToProcessEnvironment() {
        let current = ProcessInfo.processInfo.environment
        for (key, value) in values where !value.isEmpty && (current[key] ?? "").isEmpty {
            setenv(key, value, 1)
        }
    }
}
