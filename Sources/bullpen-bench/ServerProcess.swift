import ArgumentParser
import Foundation

/// The real `bullpen serve` as a child process, so that the bench's clients do not share the
/// server's event loops.
final class ServerProcess {
    let process = Process()
    let url: String
    private let output: Pipe

    /// Starts `binary serve` on a scratch data directory and waits for the URL it prints.
    init(binary: String, dataDirectory: URL, pack: URL, postgres: String?) throws {
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve", "--port", "0", "--data-dir", dataDirectory.path, "--market-data", pack.path]
        var environment = ProcessInfo.processInfo.environment
        environment["BULLPEN_BCRYPT_COST"] = "4"   // registration is not what is measured
        environment["BULLPEN_REGISTRATIONS_PER_ADDRESS"] = "1000000"   // every bench player comes from loopback
        // The limit is counted (as in production) but never reached; BULLPEN_ORDERS_PER_MINUTE=0 measures without it.
        environment["BULLPEN_ORDERS_PER_MINUTE"] = ProcessInfo.processInfo.environment["BULLPEN_ORDERS_PER_MINUTE"] ?? "100000000"
        environment["LOG_LEVEL"] = "error"
        environment["DATABASE_URL"] = postgres
        environment["BULLPEN_MIGRATE_ON_START"] = postgres == nil ? nil : "1"
        process.environment = environment
        output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        var seen = ""
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += String(decoding: chunk, as: UTF8.self)
            if let range = seen.range(of: #"Bullpen listening on http://[0-9.:]+"#, options: .regularExpression) {
                url = String(seen[range].split(separator: " ").last ?? "")
                // Keep draining the server's output so that it never blocks on a full pipe.
                output.fileHandleForReading.readabilityHandler = { _ = $0.availableData }
                return
            }
        }
        process.terminate()
        throw ValidationError("the server did not start:\n\(seen)")
    }

    /// Resident memory of the server process in MB.
    var residentMB: Double {
        guard let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        return (Double(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "0") ?? 0) / 1024
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
        output.fileHandleForReading.readabilityHandler = nil
    }

    /// The `bullpen` executable beside this one (same build), unless `path` says otherwise.
    static func binary(_ path: String?) -> String {
        path ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("bullpen").path
    }
}

/// Raw SQLite, no server: one order's rows (order, fill, journal entry, position, portfolio with
/// a version check) per transaction, or 50 orders per transaction, with `synchronous` FULL and
/// NORMAL in WAL mode. Measured by Python's `sqlite3` (the C library, called directly) in a
/// child process: the yardstick of what the disk and SQLite allow.
enum RawSQLite {
    struct Rates {
        var full: Double, normal: Double, full50: Double, normal50: Double
    }

    static let script = #"""
import os, sqlite3, sys, tempfile, time, uuid
n = int(sys.argv[1])
def run(sync, per_tx):
    d = tempfile.mkdtemp(prefix="bullpen-raw-", dir=sys.argv[2])
    db = sqlite3.connect(os.path.join(d, "raw.sqlite"), isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL"); db.execute(f"PRAGMA synchronous={sync}")
    db.executescript('''
      CREATE TABLE portfolios (id TEXT PRIMARY KEY, cash_cents INTEGER, version INTEGER, journal_sequence INTEGER);
      CREATE TABLE orders (id TEXT PRIMARY KEY, portfolio_id TEXT, symbol TEXT, side TEXT, quantity INTEGER, price_ticks INTEGER, cash_delta_cents INTEGER, created_at REAL);
      CREATE TABLE fills (id TEXT PRIMARY KEY, order_id TEXT, portfolio_id TEXT, symbol TEXT, quantity INTEGER, price_ticks INTEGER, created_at REAL);
      CREATE TABLE journal_entries (id TEXT PRIMARY KEY, portfolio_id TEXT, sequence INTEGER, symbol TEXT, quantity_delta INTEGER, cash_delta_cents INTEGER, created_at REAL);
      CREATE TABLE positions (id TEXT PRIMARY KEY, portfolio_id TEXT, symbol TEXT, quantity INTEGER, UNIQUE (portfolio_id, symbol));
      INSERT INTO portfolios VALUES ('p', 1000000000, 1, 0);''')
    start = time.perf_counter(); version = 1
    for t in range(n // per_tx):
        db.execute("BEGIN")
        for _ in range(per_tx):
            o, f, j = str(uuid.uuid4()), str(uuid.uuid4()), str(uuid.uuid4()); now = time.time()
            db.execute("INSERT INTO orders VALUES (?,?,?,?,?,?,?,?)", (o, 'p', 'MSFT', 'buy', 1, 4000000, -40000, now))
            db.execute("INSERT INTO fills VALUES (?,?,?,?,?,?,?)", (f, o, 'p', 'MSFT', 1, 4000000, now))
            db.execute("INSERT INTO journal_entries VALUES (?,?,?,?,?,?,?)", (j, 'p', version, 'MSFT', 1, -40000, now))
            db.execute("INSERT INTO positions VALUES (?,?,?,1) ON CONFLICT (portfolio_id, symbol) DO UPDATE SET quantity = quantity + 1", (str(uuid.uuid4()), 'p', 'MSFT'))
            db.execute("UPDATE portfolios SET cash_cents = cash_cents - 40000, version = ?, journal_sequence = ? WHERE id = 'p' AND version = ?", (version + 1, version, version))
            version += 1
        db.execute("COMMIT")
    return (n // per_tx) * per_tx / (time.perf_counter() - start)
print(run("FULL", 1), run("NORMAL", 1), run("FULL", 50), run("NORMAL", 50))
"""#

    /// Order rates (orders a second) for `orders` orders each way, in files under `directory`.
    static func measure(orders: Int, in directory: URL) throws -> Rates {
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", script, String(orders), directory.path]
        let output = Pipe()
        python.standardOutput = output
        try python.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        python.waitUntilExit()
        let rates = text.split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        guard python.terminationStatus == 0, rates.count == 4 else { throw ValidationError("raw SQLite bench failed: \(text)") }
        return Rates(full: rates[0], normal: rates[1], full50: rates[2], normal50: rates[3])
    }
}
