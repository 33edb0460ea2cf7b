import Crypto
import Foundation
import NIOFoundationEssentialsCompat
import Vapor

/// Serves the web app (plain HTML, CSS and JavaScript modules, shipped as resources of this
/// target) at `/`: from memory, with ETags and a content security policy. Everything under
/// `/api/` and the service routes pass through to the router.
struct WebAppMiddleware: AsyncMiddleware {
    struct File: Sendable {
        var body: ByteBuffer
        var contentType: String
        var etag: String
    }

    let files: [String: File]

    /// Reads the app's files (the folder and its subfolders: `screens/`, `components/`) from the
    /// bundle once.
    init() {
        var files: [String: File] = [:]
        if let directory = Bundle.module.url(forResource: "Web", withExtension: nil),
           let walker = FileManager.default.enumerator(atPath: directory.path) {
            for case let name as String in walker {
                let url = directory.appendingPathComponent(name)
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                      let data = try? Data(contentsOf: url) else { continue }
                let type = switch url.pathExtension {
                case "html": "text/html; charset=utf-8"
                case "js": "text/javascript; charset=utf-8"
                case "css": "text/css; charset=utf-8"
                case "svg": "image/svg+xml"
                default: "application/octet-stream"
                }
                let digest = String(SHA256.hash(data: data).hex.prefix(16))
                files["/" + name] = File(body: ByteBuffer(data: data), contentType: type, etag: "\"\(digest)\"")
            }
        }
        files["/"] = files["/index.html"]
        self.files = files
    }

    /// No inline scripts or styles: every style is in the stylesheet, every script a module file.
    static let contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; "
        + "img-src 'self' data: https:; connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        guard request.method == .GET || request.method == .HEAD, let file = files[request.url.path] else {
            return try await next.respond(to: request)
        }
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .contentType, value: file.contentType)
        headers.replaceOrAdd(name: .eTag, value: file.etag)
        headers.replaceOrAdd(name: .cacheControl, value: "no-cache")
        headers.replaceOrAdd(name: "Content-Security-Policy", value: Self.contentSecurityPolicy)
        if request.headers.first(name: .ifNoneMatch) == file.etag {
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: .init(buffer: file.body))
    }
}
