"""Real server software for the tests: Debian's nginx and squid, each a child process of the suite.

    import unittest
    from tests import peers

    def setUpModule():
        global NGINX, SQUID
        NGINX = peers.nginx(upstream=peers.backend().url())  # raises SkipTest when nginx is missing
        SQUID = peers.squid(auth=True)

    send(Request("GET", NGINX.url("/ok")), transport=SocketTransport(ssl_context=NGINX.ssl_context()))

Each starter makes a private temporary directory (configuration, pid file,
logs, temp files, certificates: nothing is written outside it), picks free
ports, starts the program in the foreground, waits (bounded) until it
listens, and registers its stop with :func:`unittest.addModuleCleanup`, so
it is stopped after the calling module's tests, also when a later step of
``setUpModule`` fails; a starter that fails halfway stops what it started
before raising.  Call them from ``setUpModule`` or ``setUpClass``.  Where a
program is not installed, the starter raises :class:`unittest.SkipTest`
naming it ("nginx not installed"), so a bare ``python -m unittest`` runs;
CI (``.ci/run``) installs them.  Everything listens on 127.0.0.1 and, where
this machine has it, [::1] only.

:func:`nginx` gives an :class:`Nginx`: two server blocks (``origin=0`` and
``origin=1``, on different ports: two origins), each over plain HTTP and over
TLS with a certificate for 127.0.0.1, ::1 and localhost from a CA made here
(:attr:`Nginx.ca_file`), ``keepalive_timeout 1s``.  Locations (the same in
both blocks):

* ``/ok``: 200 ``ok``; ``/big``: 200 with 64 KiB of ``x``;
* ``/connection``: 200 with nginx's serial number of the connection and how many requests it carried;
* ``/redirect/301`` ... ``/redirect/308``: that status, ``Location`` the
  ``to`` query value as given (``?to=/ok``, ``?to=http://127.0.0.1:81/ok``);
* ``/loop``: 302 to itself;
* ``/small/``: ``client_max_body_size 1k`` (a bigger body gets nginx's 413 page);
* ``/dead/``: proxied to a port nothing listens on (nginx's 502 page);
* ``/unavailable``: 503 with a maintenance page (``<title>Down for
  maintenance</title>``) and ``Retry-After: 1``;
* ``/up/...``: proxied unbuffered (HTTP/1.1) to ``upstream``, if given (say
  :func:`backend`'s URL, a :class:`~tests.loopback.Loopback` whose replies a
  test sets), the path passed on as it came.

:func:`squid` gives a :class:`Squid` forwarding plain HTTP and tunnelling
``CONNECT`` to any port; with ``auth=True`` it asks for basic proxy
credentials (:attr:`Squid.user`, :attr:`Squid.password`, checked by squid's
``basic_ncsa_auth`` against an ``openssl passwd -apr1`` file) and
:attr:`Squid.proxy_url` carries them.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
import unittest
from typing import Any, Callable

from .capability import can_serve_loopback, can_spawn_process

__all__ = ("nginx", "squid", "backend", "Nginx", "Squid", "has_ipv6", "STARTUP")

#: The longest a program may take to start listening, in seconds.
STARTUP = 30.0
_STOP = 10.0
_SBIN = ("/usr/sbin", "/usr/local/sbin", "/sbin")
_HELPERS = ("/usr/lib/squid", "/usr/lib64/squid", "/usr/libexec/squid")


def _program(name: str) -> str:
    """The path of ``name`` (PATH, then the sbin folders), or raise SkipTest."""
    if not can_spawn_process():
        raise unittest.SkipTest("needs processes: this interpreter cannot spawn one")
    if not can_serve_loopback():
        raise unittest.SkipTest("needs sockets: this interpreter cannot serve and reach 127.0.0.1")
    found = shutil.which(name) or next((p for d in _SBIN if os.access(p := os.path.join(d, name), os.X_OK)), None)
    if not found:
        raise unittest.SkipTest(f"needs {name}: not installed")
    return found


def has_ipv6() -> bool:
    """Whether a server can listen on [::1] here."""
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


def _free_ports(count: int) -> list[int]:
    """``count`` distinct ports free on 127.0.0.1 (and ::1) just now."""
    holders, ports = [], []
    try:
        for _ in range(100 * count):  # bounded: a port taken on ::1 is skipped, not waited for
            if len(ports) == count:
                break
            holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            holders.append(holder)
            holder.bind(("127.0.0.1", 0))
            port = holder.getsockname()[1]
            if has_ipv6():
                try:
                    with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as six:
                        six.bind(("::1", port))
                except OSError:
                    continue
            ports.append(port)
    finally:
        for holder in holders:
            holder.close()
    if len(ports) < count:
        raise RuntimeError(f"found {len(ports)} of {count} ports free on both 127.0.0.1 and ::1")
    return ports


def _run(args: list[str], cwd: str) -> str:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    if done.returncode:
        raise RuntimeError(f"{' '.join(args)} failed: {done.stderr.strip()[-2000:]}")
    return done.stdout


class _Peer:
    """A program running from its own temporary directory; :meth:`stop` ends it and removes the directory."""

    name = "peer"

    def _begin(self) -> None:
        raise NotImplementedError

    def __init__(self) -> None:
        self.dir = tempfile.mkdtemp(prefix=f"agentkit-{self.name}-")
        self.process: subprocess.Popen[bytes] | None = None
        self.log = os.path.join(self.dir, "output.log")

    def _start(self, args: list[str], ports: list[int], ready: Callable[[], bool]) -> None:
        """Start ``args``; wait until ``ready()`` says the program itself listens and every port answers."""
        with open(self.log, "wb") as out:
            self.process = subprocess.Popen(args, cwd=self.dir, stdin=subprocess.DEVNULL, stdout=out, stderr=out)
        deadline = time.monotonic() + STARTUP
        waiting = list(ports)
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}: {self.tail()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.name} did not listen on {waiting or ports} within {STARTUP} s: {self.tail()}")
            if not ready():  # a port answering could be someone else's: the program must say it listens
                time.sleep(0.05)
                continue
            if not waiting:
                return
            try:
                socket.create_connection(("127.0.0.1", waiting[0]), timeout=1).close()
            except OSError:
                time.sleep(0.05)
                continue
            waiting.pop(0)

    def _read(self, name: str) -> str:
        try:
            with open(os.path.join(self.dir, name), "rb") as f:
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def tail(self, logs: tuple[str, ...] = ()) -> str:
        """The last lines the program wrote (its output and ``logs`` in its directory)."""
        text = []
        for path in (self.log, *(os.path.join(self.dir, p) for p in logs)):
            try:
                with open(path, "rb") as f:
                    text.append(f.read()[-3000:].decode("utf-8", "replace"))
            except OSError:
                pass
        return " | ".join(t.strip() for t in text if t.strip()) or "(no output)"

    def stop(self) -> None:
        """End the program (SIGTERM, then SIGKILL after a bounded wait) and remove its directory; idempotent."""
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(_STOP)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(_STOP)
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _started(make: Callable[[], _Peer]) -> Any:
    """Start a peer ``make()`` gives; stop it if that fails, else register its stop for the end of the module.

    A port taken by someone else between choosing and binding it gets a
    fresh peer on fresh ports, up to three times.
    """
    for attempt in range(3):
        peer = make()
        try:
            peer._begin()
        except RuntimeError as exc:
            peer.stop()
            if "in use" in str(exc) and attempt < 2:
                continue
            raise
        except BaseException:
            peer.stop()
            raise
        unittest.addModuleCleanup(peer.stop)
        return peer
    raise AssertionError("unreachable")  # pragma: no cover


# -- a private CA ----------------------------------------------------------------------


def make_ca(folder: str) -> tuple[str, str, str]:
    """A CA and a server certificate for 127.0.0.1, ::1 and localhost in ``folder``: (ca_file, cert, key)."""
    openssl = shutil.which("openssl")
    if not openssl:
        raise unittest.SkipTest("needs openssl: not installed")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    _run([openssl, "req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj",
          "/CN=agentkit test CA", "-addext", "basicConstraints=critical,CA:TRUE",
          "-addext", "keyUsage=critical,keyCertSign,cRLSign"], folder)  # fmt: skip
    _run([openssl, "req", *ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"], folder)
    with open(os.path.join(folder, "server.ext"), "w") as f:
        f.write(
            "subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost\nbasicConstraints=critical,CA:FALSE\n"
            "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n"
            "subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid,issuer\n"
        )
    _run([openssl, "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
          "-out", "server.pem", "-days", "2", "-extfile", "server.ext"], folder)  # fmt: skip
    return tuple(os.path.join(folder, n) for n in ("ca.pem", "server.pem", "server.key"))  # type: ignore[return-value]


# -- nginx -----------------------------------------------------------------------------

_NGINX_CONF = """\
master_process off;
daemon off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    keepalive_timeout 1s;
    default_type text/plain;
    ssl_certificate {cert};
    ssl_certificate_key {key};
{servers}}}
"""

_NGINX_SERVER = """\
    server {{
        {listen}
        location = /ok {{ return 200 "ok\\n"; }}
        location = /connection {{ return 200 "$connection $connection_requests\\n"; }}
        location = /big {{ alias {dir}/big.txt; }}
        location = /redirect/301 {{ return 301 $arg_to; }}
        location = /redirect/302 {{ return 302 $arg_to; }}
        location = /redirect/303 {{ return 303 $arg_to; }}
        location = /redirect/307 {{ return 307 $arg_to; }}
        location = /redirect/308 {{ return 308 $arg_to; }}
        location = /loop {{ return 302 /loop; }}
        location /small/ {{ client_max_body_size 1k; return 200 "small\\n"; }}
        location /dead/ {{ proxy_pass http://127.0.0.1:{dead}; proxy_connect_timeout 5s; }}
        location = /unavailable {{ error_page 503 /maintenance.html; return 503; }}
        location = /maintenance.html {{
            internal;
            add_header Retry-After 1 always;
            default_type text/html;
            return 503 "<!DOCTYPE html>\\n<html><head><title>Down for maintenance</title></head>\\n<body><h1>Back soon</h1><p>We are upgrading.</p></body></html>\\n";
        }}
{upstream}    }}
"""

_NGINX_UPSTREAM = """\
        location /up/ {{
            proxy_pass {upstream};
            proxy_http_version 1.1;
            proxy_buffering off;
            proxy_request_buffering off;
            proxy_set_header Connection "";
            proxy_read_timeout 30s;
        }}
"""


class Nginx(_Peer):
    """A running nginx: see the module docstring for what it serves."""

    name = "nginx"

    def __init__(self, upstream: str | None) -> None:
        super().__init__()
        self.upstream = upstream
        self.ipv6 = has_ipv6()
        #: The CA certificate (PEM) the server's certificate is signed by.
        self.ca_file = ""
        #: (plain, tls) ports of each origin.
        self.ports: list[tuple[int, int]] = []

    def url(self, path: str = "/", v6: bool = False, tls: bool = True, origin: int = 0) -> str:
        """The URL of ``path`` on origin 0 or 1, over TLS or plain HTTP, by 127.0.0.1 or [::1]."""
        if v6 and not self.ipv6:
            raise unittest.SkipTest("needs [::1]: this machine cannot listen there")
        host = "[::1]" if v6 else "127.0.0.1"
        return f"{'https' if tls else 'http'}://{host}:{self.ports[origin][1 if tls else 0]}{path}"

    def ssl_context(self) -> Any:
        """A verifying ``ssl.SSLContext`` that trusts only :attr:`ca_file`."""
        import ssl

        return ssl.create_default_context(cafile=self.ca_file)

    def _begin(self) -> None:
        program = _program("nginx")
        self.ca_file, cert, key = make_ca(self.dir)
        *ports, dead = _free_ports(5)
        self.ports = [(ports[0], ports[1]), (ports[2], ports[3])]
        hosts = ["127.0.0.1", "[::1]"] if self.ipv6 else ["127.0.0.1"]
        upstream = _NGINX_UPSTREAM.format(upstream=self.upstream.rstrip("/")) if self.upstream else ""
        servers = "".join(
            _NGINX_SERVER.format(
                listen=" ".join(f"listen {h}:{plain}; listen {h}:{tls} ssl;" for h in hosts),
                dir=self.dir,
                dead=dead,
                upstream=upstream,
            )
            for plain, tls in self.ports
        )
        with open(os.path.join(self.dir, "big.txt"), "w") as f:
            f.write("x" * 65536)
        conf = os.path.join(self.dir, "nginx.conf")
        with open(conf, "w") as f:
            f.write(_NGINX_CONF.format(dir=self.dir, cert=cert, key=key, servers=servers))
        args = [program, "-p", self.dir, "-c", conf, "-e", os.path.join(self.dir, "error.log")]
        # nginx writes its pid file once every listening socket is bound, and exits if one cannot be
        self._start(args, [p for pair in self.ports for p in pair], lambda: bool(self._read("nginx.pid").strip()))

    def tail(self, logs: tuple[str, ...] = ("error.log",)) -> str:
        return super().tail(logs)


def nginx(upstream: str | None = None) -> Nginx:
    """Start an :class:`Nginx` (``/up/`` proxied to ``upstream``, an ``http://host:port`` URL, if given)."""
    return _started(lambda: Nginx(upstream))  # type: ignore[no-any-return]


# -- squid -----------------------------------------------------------------------------

_SQUID_CONF = """\
{listen}
pid_filename {dir}/squid.pid
cache_log {dir}/cache.log
access_log none
cache_store_log none
logfile_rotate 0
coredump_dir {dir}
netdb_filename none
pinger_enable off
cache deny all
cache_mem 8 MB
shutdown_lifetime 0 seconds
visible_hostname agentkit-test
{effective}
{auth}
http_access deny !localhost
{allow}
http_access deny all
"""


class Squid(_Peer):
    """A running squid: a forward proxy on 127.0.0.1 (and [::1]), with basic auth if asked."""

    name = "squid"

    def __init__(self, auth: bool) -> None:
        super().__init__()
        self.auth = auth
        self.user = "agent" if auth else ""
        self.password = "s3cret-proxy-pass" if auth else ""
        self.port = 0

    @property
    def proxy_url(self) -> str:
        """``http://[user:password@]127.0.0.1:port``."""
        creds = f"{self.user}:{self.password}@" if self.auth else ""
        return f"http://{creds}127.0.0.1:{self.port}"

    @property
    def address(self) -> tuple[str, int]:
        """(host, port) of the proxy."""
        return ("127.0.0.1", self.port)

    def _begin(self) -> None:
        program = _program("squid")
        (self.port,) = _free_ports(1)
        hosts = ["127.0.0.1", "[::1]"] if has_ipv6() else ["127.0.0.1"]
        auth = allow = ""
        if self.auth:
            helper = next((p for d in _HELPERS if os.access(p := os.path.join(d, "basic_ncsa_auth"), os.X_OK)), None)
            if helper is None:
                raise unittest.SkipTest("needs squid: its basic_ncsa_auth helper is not installed")
            openssl = shutil.which("openssl")
            if not openssl:
                raise unittest.SkipTest("needs openssl: not installed")
            hashed = _run([openssl, "passwd", "-apr1", self.password], self.dir).strip()
            passwd = os.path.join(self.dir, "passwd")
            with open(passwd, "w") as f:
                f.write(f"{self.user}:{hashed}\n")
            auth = (
                f"auth_param basic program {helper} {passwd}\nauth_param basic children 1 startup=1 idle=1\n"
                'auth_param basic realm agentkit test\nacl authed proxy_auth REQUIRED'
            )
            allow = "http_access allow authed"
        else:
            allow = "http_access allow all"
        effective = ""
        if hasattr(os, "geteuid") and os.geteuid() == 0:  # squid drops root: give its user the directory
            import pwd

            user = next((u for u in ("proxy", "squid", "nobody") if _has_user(pwd, u)), "nobody")
            entry = pwd.getpwnam(user)
            for root, dirs, files in os.walk(self.dir):
                for path in (root, *(os.path.join(root, n) for n in dirs + files)):
                    os.chown(path, entry.pw_uid, entry.pw_gid)
            effective = f"cache_effective_user {user}"
        conf = os.path.join(self.dir, "squid.conf")
        with open(conf, "w") as f:
            f.write(
                _SQUID_CONF.format(
                    listen="\n".join(f"http_port {h}:{self.port}" for h in hosts),
                    dir=self.dir,
                    effective=effective,
                    auth=auth,
                    allow=allow,
                )
            )
        def ready() -> bool:  # squid logs each port it listens on; one it cannot bind is an error line instead
            said = self._read("cache.log")
            if "Address already in use" in said:
                raise RuntimeError(f"squid: port {self.port} in use: {self.tail()}")
            return all(f"local={h}:{self.port} " in said for h in hosts)

        self._start([program, "-N", "-f", conf], [self.port], ready)

    def tail(self, logs: tuple[str, ...] = ("cache.log",)) -> str:
        return super().tail(logs)


def _has_user(pwd: Any, name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def squid(auth: bool = False) -> Squid:
    """Start a :class:`Squid`, asking for basic proxy credentials if ``auth``."""
    return _started(lambda: Squid(auth))  # type: ignore[no-any-return]


# -- the loopback backend --------------------------------------------------------------


def backend() -> Any:
    """A :class:`~tests.loopback.Loopback` started for the module, echoing each request.

    A test that wants other answers calls ``server.script([...])`` (and
    ``server.script([Reply(echo=True)])`` in a cleanup to put the echo back).
    """
    from .loopback import Loopback, Reply

    if not can_serve_loopback():
        raise unittest.SkipTest("needs sockets: this interpreter cannot serve and reach 127.0.0.1")
    server = Loopback([Reply(echo=True)])
    server.__enter__()
    unittest.addModuleCleanup(server.__exit__)
    return server
