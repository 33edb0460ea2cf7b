"""What the end-to-end scripts share: starting the real `bullpen` binary, calling its API, and
exact decimal arithmetic on the amounts it returns (strings, never floats)."""
import json
import os
import random
import re
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from decimal import Decimal

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.path.join(ROOT, ".build", "debug", "bullpen")


def pack_directory():
    pack = os.environ.get("BULLPEN_MARKET_DATA") or os.path.join(ROOT, "..", "shared", "market-data")
    return pack if os.path.exists(os.path.join(pack, "universe.csv")) else None


def psql(url, statement):
    subprocess.run(["psql", url, "-qc", statement], check=True, stdout=subprocess.DEVNULL)


class ThrowawayDatabase:
    """A PostgreSQL database of its own on the server at `admin` (a URL), migrated, dropped on exit."""

    def __init__(self, admin, prefix):
        self.admin = admin
        self.name = f"{prefix}_{random.randrange(10**9)}"
        self.url = urllib.parse.urlunsplit(urllib.parse.urlsplit(admin)._replace(path="/" + self.name))

    def __enter__(self):
        psql(self.admin, f"CREATE DATABASE {self.name}")
        subprocess.run([BINARY, "migrate"], check=True, env=dict(os.environ, DATABASE_URL=self.url), stdout=subprocess.DEVNULL)
        return self

    def __exit__(self, *_):
        psql(self.admin, f"DROP DATABASE IF EXISTS {self.name} WITH (FORCE)")


class Server:
    """One `bullpen serve` process; `url` once it printed where it listens."""

    def __init__(self, data_dir, env=None, log=None):
        self.data_dir, self.extra_env = data_dir, env or {}
        self.log_path = log or os.path.join(data_dir, "server.log")
        self.process, self.url = None, None

    def start(self):
        os.makedirs(self.data_dir, exist_ok=True)
        env = dict(os.environ, BULLPEN_BCRYPT_COST="4", BULLPEN_REGISTRATIONS_PER_ADDRESS="100000", BULLPEN_ORDERS_PER_MINUTE="100000000", LOG_LEVEL="error", BULLPEN_MARKET_DATA=pack_directory() or "")
        env.update(self.extra_env)
        self.log = open(self.log_path, "a")
        offset = os.path.getsize(self.log_path)
        self.process = subprocess.Popen([BINARY, "serve", "--port", "0", "--data-dir", self.data_dir],
                                        stdout=self.log, stderr=subprocess.STDOUT, env=env)
        deadline = time.time() + 60
        while time.time() < deadline:
            with open(self.log_path) as f:
                f.seek(offset)
                found = re.findall(r"Bullpen listening on (http://[0-9.:]+)", f.read())
            if found:
                self.url = found[-1]
                return self
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError("the server did not start: " + open(self.log_path).read()[-2000:])

    def kill(self):
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()
        self.process = None


def call(base, method, path, token=None, body=None, headers=None, timeout=30):
    """(status, parsed JSON or None); connection failures raise."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("content-type", "application/json")
    if token:
        request.add_header("authorization", "Bearer " + token)
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read()
            return response.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as error:
        raw = error.read()
        try:
            return error.code, json.loads(raw) if raw else None
        except ValueError:
            return error.code, None


def register(base, name):
    status, auth = call(base, "POST", "/api/v1/auth/register", body={"username": name, "password": "correct horse battery " + str(len(name)) + "x"})
    assert status == 201, (status, auth)
    token = auth["tokens"]["accessToken"]
    status, listing = call(base, "GET", "/api/v1/portfolios", token)
    assert status == 200, (status, listing)
    return token, listing["portfolios"][0]["id"]


def all_orders(base, token, portfolio):
    """Every order of the portfolio, through the cursor pages."""
    orders, cursor = [], None
    while True:
        path = f"/api/v1/portfolios/{portfolio}/orders?limit=200" + (f"&cursor={cursor}" if cursor else "")
        status, page = call(base, "GET", path, token)
        assert status == 200, (status, page)
        orders += page["orders"]
        cursor = page.get("nextCursor")
        if not cursor:
            return orders


def check_books(base, token, portfolio, orders, starting_cash):
    """The portfolio's cash and positions are exactly what its orders moved; returns problems."""
    problems = []
    status, summary = call(base, "GET", f"/api/v1/portfolios/{portfolio}", token)
    assert status == 200, (status, summary)
    status, positions = call(base, "GET", f"/api/v1/portfolios/{portfolio}/positions", token)
    assert status == 200, (status, positions)
    cash = Decimal(starting_cash) + sum(Decimal(o["cashDelta"]) for o in orders)
    if Decimal(summary["cash"]) != cash:
        problems.append(f"cash {summary['cash']} but the orders say {cash}")
    if Decimal(summary["cash"]) < 0:
        problems.append(f"negative cash {summary['cash']}")
    # Quantities are exact JSON numbers (fractions of a share or a coin): read as decimals.
    held = {}
    for o in orders:
        filled = Decimal(str(o["filledQuantity"]))
        held[o["symbol"]] = held.get(o["symbol"], Decimal(0)) + (filled if o["side"] == "buy" else -filled)
    shown = {p["symbol"]: Decimal(str(p["quantity"])) for p in positions["positions"]}
    expected = {s: q for s, q in held.items() if q != 0}
    if shown != expected:
        problems.append(f"positions {shown} but the orders say {expected}")
    if any(q < 0 for q in shown.values()):
        problems.append(f"negative position {shown}")
    return problems


class WebSocket:
    """A minimal RFC 6455 client on a plain socket (text frames, close frames), enough to test the
    quote stream without a third-party package."""

    def __init__(self, base, path):
        import base64
        import socket
        parts = urllib.parse.urlsplit(base)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                           f"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: {key}\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise ConnectionError("closed during the upgrade: " + head.decode(errors="replace"))
            head += chunk
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise ConnectionError("no upgrade: " + head.decode(errors="replace"))
        self.data = b""
        self.close_code = None

    def send(self, message):
        self._send_frame(0x1, json.dumps(message).encode())

    def _send_frame(self, opcode, payload):
        import struct
        mask = os.urandom(4)
        header = bytes([0x80 | opcode])
        if len(payload) < 126:
            header += bytes([0x80 | len(payload)])
        elif len(payload) < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", len(payload))
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", len(payload))
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def _need(self, n):
        while len(self.data) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the stream ended without a close frame")
            self.data += chunk

    def receive(self):
        """The next text message (parsed JSON), or None once a close frame came (its code is kept)."""
        import struct
        while True:
            self._need(2)
            opcode, length, offset = self.data[0] & 0x0F, self.data[1] & 0x7F, 2
            if length == 126:
                self._need(4)
                length, offset = struct.unpack(">H", self.data[2:4])[0], 4
            elif length == 127:
                self._need(10)
                length, offset = struct.unpack(">Q", self.data[2:10])[0], 10
            self._need(offset + length)
            payload, self.data = self.data[offset:offset + length], self.data[offset + length:]
            if opcode == 0x8:
                self.close_code = struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else None
                self._send_frame(0x8, payload[:2])   # the closing handshake, as RFC 6455 asks
                return None
            if opcode == 0x9:
                self._send_frame(0xA, payload)   # pong
            if opcode == 0x1:
                return json.loads(payload)

    def until(self, wanted, limit=50):
        """Messages up to the first whose type is `wanted` (returned); None if the stream closed first."""
        for _ in range(limit):
            message = self.receive()
            if message is None or message.get("type") == wanted:
                return message
        raise AssertionError(f"no {wanted} message in {limit}")

    def closed_with(self):
        """Reads to the close frame; its code (None if the connection just ended)."""
        try:
            while self.receive() is not None:
                pass
        except (ConnectionError, OSError):
            return None
        return self.close_code

    def close(self):
        self.sock.close()
