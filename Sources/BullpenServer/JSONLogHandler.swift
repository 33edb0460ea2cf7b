import Foundation
import Logging

/// One JSON object a line on standard error (`LOG_FORMAT=json`): `time`, `level`, `label`,
/// `message`, the source position of warnings and worse, and every metadata value as a string.
/// Vapor puts each request's `request-id` in its logger's metadata, so a request's lines can be
/// found together; the same id is the `X-Request-Id` of its response.
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?
    /// Where each line goes: standard error, or a test's collector.
    let write: @Sendable (Data) -> Void

    init(label: String, level: Logger.Level, metadataProvider: Logger.MetadataProvider? = nil,
         write: @escaping @Sendable (Data) -> Void = { FileHandle.standardError.write($0) }) {
        self.label = label
        self.logLevel = level
        self.metadataProvider = metadataProvider
        self.write = write
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var fields: [String: String] = [:]
        let merged = metadata.merging(metadataProvider?.get() ?? [:]) { $1 }.merging(event.metadata ?? [:]) { $1 }
        for (key, value) in merged { fields[key] = "\(value)" }
        fields["time"] = Date().formatted(Self.time)
        fields["level"] = event.level.rawValue
        fields["label"] = label
        fields["message"] = "\(event.message)"
        if event.level >= .warning { fields["source"] = "\(event.file):\(event.line)" }
        guard var line = try? Self.encoder.encode(fields) else { return }
        line.append(0x0A)
        write(line)
    }

    private static let time = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
