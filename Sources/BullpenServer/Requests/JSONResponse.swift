import BullpenAPI
import Foundation
import Vapor

/// The one JSON-response builder: the wire conventions (sorted keys, RFC 3339 dates), the JSON
/// content type, and the status. Error envelopes are built by it too.
func jsonResponse(_ value: some Encodable, status: HTTPResponseStatus = .ok, headers: HTTPHeaders = [:]) throws -> Response {
    let body = try APIContract.makeEncoder().encode(value)
    var headers = headers
    headers.replaceOrAdd(name: .contentType, value: "application/json; charset=utf-8")
    return Response(status: status, headers: headers, body: .init(data: body))
}
