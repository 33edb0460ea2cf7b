#!/usr/bin/env python3
"""A stand-in for Stooq's quote service on loopback, for the smoke test of `BULLPEN_QUOTES=stooq`.
Answers /q/l/?s=...&f=sd2t2ohlcv&h&e=csv in Stooq's documented CSV format; prints its port."""
import http.server, socketserver, sys, urllib.parse

class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        query = urllib.parse.parse_qs(url.query, keep_blank_values=True)
        if url.path.rstrip("/") == "/q/l":
            lines = ["Symbol,Date,Time,Open,High,Low,Close,Volume"]
            for symbol in query.get("s", [""])[0].split(","):
                if symbol.lower() == "msft.us":
                    lines.append("MSFT.US,2026-03-02,22:00:08,401.5,405,399.25,404.125,20123456")
                else:
                    lines.append(symbol.upper() + ",N/D,N/D,N/D,N/D,N/D,N/D,N/D")
            body = ("\r\n".join(lines) + "\r\n").encode()
        else:
            body = b"No data"
        self.send_response(200)
        self.send_header("Content-Type", "text/csv")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass

with socketserver.TCPServer(("127.0.0.1", 0), Handler) as server:
    print(server.server_address[1], flush=True)
    server.serve_forever()
