"""Run a real JupyterHub on 127.0.0.1 and be its learners, for the hub test and the load benchmark.

The hub is the one a class would use, cut down to one machine: JupyterHub with its proxy
(``configurable-http-proxy``, which ``make install`` puts in ``.venv/hub-proxy`` from
``tests/hub/package-lock.json``), one password for every learner (``SharedPasswordAuthenticator``)
and each learner's own Jupyter server as a local process with its own home folder under a
temporary directory (``SimpleLocalProcessSpawner``: no isolation, for tests only). Every server
runs in quick mode (``CAPSEDU_QUICK=1``) and reads MNIST and the checkpoints from the
repository's data root (``CAPSEDU_DATA``), as a shared read-only folder would be on a real hub.

A learner (``Learner``) does what a student's browser does, over HTTP: logs in on the hub's
login page, starts its server, follows the course's nbgitpuller link (the pull itself:
``git-pull/api``), then opens a notebook and runs its cells in a kernel through jupyter_server's
REST API and kernel websocket, and moves a widget's control by sending the widget the message a
browser sends when a slider is dragged (``move_control``). The course it pulls is a bare clone of
this repository's committed HEAD (``course_repository``), so a test checks what would be pushed.
"""

import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import requests
import websocket

REPO = Path(__file__).resolve().parents[2]
# `make install` runs `npm ci` on tests/hub/package-lock.json in .venv/hub-proxy; conda's
# jupyterhub brings its own configurable-http-proxy on the PATH
PROXY = Path(sys.prefix) / "hub-proxy" / "node_modules" / ".bin" / "configurable-http-proxy"
if not PROXY.exists() and shutil.which("configurable-http-proxy"):
    PROXY = Path(shutil.which("configurable-http-proxy"))
SINGLEUSER = Path(sys.executable).parent / "jupyterhub-singleuser"
PASSWORD = "capsules-agree"  # every learner's (SharedPasswordAuthenticator.user_password)
NOTEBOOK = "capsedu/notebooks/03_squash.ipynb"  # inside a learner's home, after the pull
BRANCH = "main"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def course_repository(work: Path) -> str:
    """A bare clone of this repository's committed HEAD, as branch ``main`` of
    ``work/capsedu`` (so the folder nbgitpuller pulls into is ``capsedu``, as from GitHub).
    Returns its ``file://`` URL."""
    bare = work / "capsedu"
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()
    subprocess.run(["git", "clone", "--quiet", "--bare", str(REPO), str(bare)], check=True)
    subprocess.run(["git", "-C", str(bare), "update-ref", f"refs/heads/{BRANCH}", head],
                   check=True)
    subprocess.run(["git", "-C", str(bare), "symbolic-ref", "HEAD", f"refs/heads/{BRANCH}"],
                   check=True)
    return bare.as_uri()


def pull_query(repository: str, urlpath: str | None = None) -> str:
    """The query of the course's nbgitpuller link (``git-pull?...``): the repository, its branch
    and, when given, what to open once the course is pulled (e.g. ``lab/tree/capsedu/...``)."""
    query = {"repo": repository, "branch": BRANCH}
    if urlpath:
        query["urlpath"] = urlpath
    return urllib.parse.urlencode(query)


@dataclass
class Hub:
    """A running JupyterHub: its public URL, the folder holding its files and the learners'
    homes, its log, its process, and a token of an admin service (to find servers' processes)."""

    url: str
    work: Path
    log: Path
    process: subprocess.Popen
    token: str

    def api(self, method: str, path: str, **kwargs) -> requests.Response:
        """Call the hub's REST API (``/hub/api{path}``) as the admin service."""
        response = requests.request(method, f"{self.url}/hub/api{path}", timeout=30,
                                    headers={"Authorization": f"token {self.token}"}, **kwargs)
        response.raise_for_status()
        return response

    def stop_server(self, name: str, timeout: float = 60.0) -> None:
        """Stop the learner's server (as the admin page's "Stop Server") and wait until it is."""
        self.api("DELETE", f"/users/{name}/server")
        deadline = time.monotonic() + timeout
        while self.api("GET", f"/users/{name}").json().get("servers"):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{name}'s server still running after {timeout:.0f} s")
            time.sleep(0.5)

    def home(self, name: str) -> Path:
        return self.work / "home" / name

    def server_processes(self, name: str) -> list[psutil.Process]:
        """The learner's Jupyter server and everything it started (its kernels)."""
        for child in psutil.Process(self.process.pid).children(recursive=True):
            try:
                if (any("jupyterhub-singleuser" in part for part in child.cmdline())
                        and child.environ().get("JUPYTERHUB_USER") == name):
                    return [child, *child.children(recursive=True)]
            except psutil.Error:  # a process that ended while we looked
                continue
        return []


CONFIG = """\
# Written by tests/hub/hubdriver.py: a hub on 127.0.0.1 for a test (see its docstring).
c.JupyterHub.bind_url = {url!r}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_api_port}"
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.JupyterHub.db_url = "sqlite:///" + {db!r}
c.JupyterHub.cookie_secret_file = {cookie!r}
c.JupyterHub.authenticator_class = "shared-password"
c.SharedPasswordAuthenticator.user_password = {password!r}
c.Authenticator.allow_all = True
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = {homes!r} + "/{{username}}"
c.Spawner.cmd = [{singleuser!r}]
c.Spawner.args = ["--allow-root"] if {root!r} else []
c.Spawner.default_url = "/lab"
c.Spawner.environment = {environment!r}
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 180
c.JupyterHub.services = [{{"name": "capsedu-test", "api_token": {token!r}}}]
c.JupyterHub.load_roles = [{{"name": "capsedu-test", "services": ["capsedu-test"],
                            "scopes": ["admin:users", "admin:servers"]}}]
"""


def start_hub(work: Path, environment: dict | None = None, timeout: float = 60.0) -> Hub:
    """Start JupyterHub (and its proxy) with its files under ``work``; wait until it answers.
    Every learner's server gets ``CAPSEDU_QUICK=1``, ``CAPSEDU_DATA`` (the repository's data
    root) and ``environment``; no other variable of this process."""
    if not PROXY.exists():
        raise RuntimeError(f"{PROXY} not found: run `make install` (npm ci of "
                           "tests/hub/package-lock.json)")
    work.mkdir(parents=True, exist_ok=True)
    (work / "home").mkdir(exist_ok=True)
    port, token = _free_port(), uuid.uuid4().hex
    env = {"CAPSEDU_QUICK": "1", "CAPSEDU_DATA": str(REPO / "data"),
           "JUPYTER_PREFER_ENV_PATH": "1", **(environment or {})}
    config = work / "jupyterhub_config.py"
    config.write_text(CONFIG.format(
        url=f"http://127.0.0.1:{port}", hub_port=_free_port(), proxy_api_port=_free_port(),
        proxy=str(PROXY), db=str(work / "jupyterhub.sqlite"), cookie=str(work / "cookie_secret"),
        password=PASSWORD, homes=str(work / "home"), singleuser=str(SINGLEUSER),
        root=os.geteuid() == 0, environment=env, token=token))
    log = work / "jupyterhub.log"
    with open(log, "wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(config)],
                                   cwd=work, stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    hub = Hub(f"http://127.0.0.1:{port}", work, log, process, token)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"jupyterhub exited with {process.returncode}; see {log}")
        try:
            hub.api("GET", "/")
            return hub
        except requests.RequestException:
            time.sleep(0.3)
    stop_hub(hub)
    raise RuntimeError(f"jupyterhub did not answer within {timeout:.0f} s; see {log}")


def stop_hub(hub: Hub, timeout: float = 30.0) -> None:
    """Stop the hub: SIGTERM stops every learner's server and the proxy it started; what is
    still there after ``timeout`` is killed (the whole process group, kernels included)."""
    leftovers = psutil.Process(hub.process.pid).children(recursive=True)
    hub.process.send_signal(signal.SIGTERM)
    try:
        hub.process.wait(timeout)
    except subprocess.TimeoutExpired:
        os.killpg(hub.process.pid, signal.SIGKILL)
        hub.process.wait(timeout)
    _, alive = psutil.wait_procs(leftovers, timeout=10)
    for process in alive:
        process.kill()


def write_lab_settings(home: Path, settings: dict) -> None:
    """JupyterLab user settings for a learner (``~/.jupyter/lab/user-settings``), written before
    the server starts: ``settings`` maps a plugin id to its values."""
    for plugin, values in settings.items():
        path = home / ".jupyter" / "lab" / "user-settings" / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))


class CellError(AssertionError):
    """A cell raised: the message holds the cell's source and the traceback."""


@dataclass
class Kernel:
    """A kernel of a learner's server, driven over jupyter_server's websocket (the JSON kernel
    protocol a browser speaks)."""

    socket: websocket.WebSocket
    session: str = field(default_factory=lambda: uuid.uuid4().hex)

    def send(self, channel: str, msg_type: str, content: dict) -> str:
        """Send a message to the kernel; return its id (replies name it as their parent)."""
        msg_id = uuid.uuid4().hex
        self.socket.send(json.dumps({
            "channel": channel, "content": content, "metadata": {}, "parent_header": {},
            "header": {"msg_id": msg_id, "msg_type": msg_type, "session": self.session,
                       "username": "capsedu-test", "version": "5.3",
                       "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}}))
        return msg_id

    def receive(self, deadline: float) -> dict:
        """The next message from the kernel; ``TimeoutError`` past ``deadline`` (monotonic)."""
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("no message from the kernel in time")
        self.socket.settimeout(left)
        try:
            frame = self.socket.recv()
        except websocket.WebSocketTimeoutException as error:
            raise TimeoutError("no message from the kernel in time") from error
        if isinstance(frame, str):
            return json.loads(frame)
        # A message with binary buffers (a widget's PNG): a count n, n offsets, then the JSON
        # message at the first offset and the buffers (jupyter_server's binary framing).
        (count,) = struct.unpack("!I", frame[:4])
        offsets = [*struct.unpack(f"!{count}I", frame[4:4 * (count + 1)]), len(frame)]
        msg = json.loads(frame[offsets[0]:offsets[1]].decode())
        msg["buffers"] = [frame[a:b] for a, b in zip(offsets[1:-1], offsets[2:], strict=True)]
        return msg

    def execute(self, code: str, timeout: float = 120.0) -> str:
        """Run ``code`` as a cell; return what it printed and displayed as text (stdout, and
        each result's text/plain). A cell that raises raises ``CellError``."""
        msg_id = self.send("shell", "execute_request", {
            "code": code, "silent": False, "store_history": True, "user_expressions": {},
            "allow_stdin": False, "stop_on_error": True})
        deadline, texts, error, idle, replied = time.monotonic() + timeout, [], None, False, False
        while not (idle and replied):
            msg = self.receive(deadline)
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "stream" and content["name"] == "stdout":
                texts.append(content["text"])
            elif kind in ("execute_result", "display_data"):
                texts.append(content["data"].get("text/plain", "") + "\n")
            elif kind == "error":
                error = "\n".join(content["traceback"])
            elif kind == "status":
                idle = content["execution_state"] == "idle"
            elif kind == "execute_reply":
                replied = True
        if error is not None:
            raise CellError(f"cell failed:\n{code}\n{_strip_ansi(error)}")
        return "".join(texts)

    def move_control(self, comm_id: str, value, watch: str, timeout: float = 60.0) -> tuple:
        """Set the control ``comm_id`` (a slider's ``model_id``) to ``value`` as a browser does
        (a comm message with the new state), and wait until the widget ``watch`` (e.g. its
        readout) gets a new value from the kernel. Returns (that value, seconds from sending
        to receiving it)."""
        start = time.perf_counter()
        self.send("shell", "comm_msg", {"comm_id": comm_id, "data": {
            "method": "update", "state": {"value": value}, "buffer_paths": []}})
        deadline = time.monotonic() + timeout
        while True:
            msg = self.receive(deadline)
            content = msg["content"]
            if (msg["msg_type"] == "comm_msg" and content.get("comm_id") == watch
                    and content["data"].get("method") == "update"
                    and "value" in content["data"].get("state", {})):
                return content["data"]["state"]["value"], time.perf_counter() - start

    def close(self) -> None:
        self.socket.close()


def _strip_ansi(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


class Learner:
    """One learner of the class, over HTTP: ``log_in``, ``start_server``, ``pull``,
    ``open_notebook``; their own token (made after logging in) for the REST calls."""

    def __init__(self, hub: Hub, name: str):
        self.hub, self.name = hub, name
        self.http = requests.Session()
        self.token: str | None = None
        self.server = f"{hub.url}/user/{name}"

    def log_in(self, password: str = PASSWORD) -> None:
        """Log in on the hub's login page (its form, with the xsrf cookie it sets), then ask
        for a token of one's own, as the hub's token page does."""
        self.http.get(f"{self.hub.url}/hub/login", timeout=30).raise_for_status()
        xsrf = self.http.cookies.get("_xsrf", path="/hub/")
        response = self.http.post(f"{self.hub.url}/hub/login?next=/hub/home", timeout=60,
                                  allow_redirects=False,
                                  data={"username": self.name, "password": password,
                                        "_xsrf": xsrf})
        if response.status_code != 302:
            raise PermissionError(f"{self.name} could not log in: HTTP {response.status_code}")
        xsrf = self.http.cookies.get("_xsrf", path="/hub/")  # a new one, for the logged-in user
        response = self.http.post(f"{self.hub.url}/hub/api/users/{self.name}/tokens",
                                  headers={"X-XSRFToken": xsrf}, timeout=30,
                                  json={"note": "capsedu hub test", "expires_in": 3600})
        response.raise_for_status()
        self.token = response.json()["token"]

    def _headers(self) -> dict:
        return {"Authorization": f"token {self.token}"}

    def start_server(self, timeout: float = 180.0) -> None:
        """Start one's own Jupyter server (the hub's "Start My Server") and wait until ready."""
        url = f"{self.hub.url}/hub/api/users/{self.name}"
        response = requests.post(f"{url}/server", headers=self._headers(), timeout=60)
        if response.status_code not in (201, 202):
            response.raise_for_status()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            user = requests.get(url, headers=self._headers(), timeout=30).json()
            server = user.get("servers", {}).get("")
            if server and server.get("ready"):
                return
            time.sleep(0.5)
        raise TimeoutError(f"{self.name}'s server not ready within {timeout:.0f} s")

    def pull(self, repository: str, timeout: float = 120.0) -> None:
        """What the course's nbgitpuller link does once the server runs: pull the repository
        into ``~/capsedu`` (``git-pull/api``, an event stream ending in phase ``finished``)."""
        with requests.get(f"{self.server}/git-pull/api?{pull_query(repository)}",
                          headers=self._headers(), stream=True, timeout=timeout) as response:
            response.raise_for_status()
            for line in response.iter_lines(decode_unicode=True):
                if not line.startswith("data: "):
                    continue
                event = json.loads(line[len("data: "):])
                if event.get("phase") == "finished":
                    return
                if event.get("phase") == "error":
                    raise RuntimeError(f"nbgitpuller failed: {event.get('message')}\n"
                                       f"{event.get('output', '')}")
        raise RuntimeError("nbgitpuller's event stream ended before phase 'finished'")

    def notebook(self, path: str = NOTEBOOK) -> dict:
        """The notebook at ``path`` (relative to the home folder), read through the server."""
        response = requests.get(f"{self.server}/api/contents/{path}", headers=self._headers(),
                                timeout=30)
        response.raise_for_status()
        return response.json()["content"]

    def open_notebook(self, path: str = NOTEBOOK) -> Kernel:
        """Open ``path`` as JupyterLab does (a session: a fresh python3 kernel, working in the
        notebook's folder) and connect to its kernel's websocket."""
        response = requests.post(f"{self.server}/api/sessions", headers=self._headers(),
                                 timeout=120, json={"path": path, "type": "notebook", "name": "",
                                                    "kernel": {"name": "python3"}})
        response.raise_for_status()
        kernel_id = response.json()["kernel"]["id"]
        url = f"{self.server.replace('http', 'ws', 1)}/api/kernels/{kernel_id}/channels"
        return Kernel(websocket.create_connection(
            url, header=[f"Authorization: token {self.token}"], timeout=60))


def run_cells(kernel: Kernel, notebook: dict, timeout: float = 300.0) -> float:
    """Run every code cell of ``notebook`` in order, as "Run All" does (stopping at the first
    that raises, with ``CellError``); return the seconds it took."""
    start, deadline = time.perf_counter(), time.monotonic() + timeout
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
            kernel.execute(source, timeout=max(1.0, deadline - time.monotonic()))
    return time.perf_counter() - start


class MemorySampler:
    """Sample the resident memory of a learner's server and its kernels (psutil, every
    ``interval`` s) in a thread, from ``start()`` to ``stop()``. ``peak`` is the largest sum of
    RSS seen at one sample; ``high_water`` the sum of each process's own peak (Linux VmHWM, read
    at the last sample), an upper bound for pages they share."""

    def __init__(self, hub: Hub, name: str, interval: float = 0.1):
        self.hub, self.name, self.interval = hub, name, interval
        self.peak = self.high_water = 0
        self._server: psutil.Process | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> None:
        rss, hwm = 0, 0
        if self._server is None:  # found once; its kernels are looked up at every sample
            self._server = next(iter(self.hub.server_processes(self.name)), None)
        try:
            processes = [self._server, *self._server.children(recursive=True)]
        except (psutil.Error, AttributeError):
            return
        for process in processes:
            try:
                rss += process.memory_info().rss
                status = Path(f"/proc/{process.pid}/status").read_text()
                hwm += int(re.search(r"VmHWM:\s+(\d+) kB", status)[1]) * 1024
            except (psutil.Error, OSError, TypeError):
                continue
        self.peak = max(self.peak, rss)
        self.high_water = max(self.high_water, hwm)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(self.interval)

    def start(self) -> "MemorySampler":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()


@dataclass
class Lesson:
    """What one learner's visit (``take_the_lesson``) did and measured. Times in seconds, memory
    in bytes (``MemorySampler``: their server and its kernel, from server start to the end)."""

    name: str
    log_in: float
    start_server: float
    pull: float
    run_notebook: float
    widget_latencies: list[float]  # each slider move to the readout's new value, round trip
    peak_memory: int
    high_water_memory: int
    readout_before: str
    readout_after: str
    state_after: dict
    kernel_facts: dict  # where the kernel works, quick mode, data root: what it sees


# Asked of the kernel once the notebook has run: the explorer's control ids, its readout, and
# what the learner's kernel sees of the course's settings. Its imports stay inside a function, out
# of the learner's names.
FACTS = """\
def _kernel_facts():
    import json
    import os

    from capsedu import course_settings

    print(json.dumps({"norm": explorer.norm.model_id, "readout": explorer.readout.model_id,
                      "readout_value": explorer.readout.value, "cwd": os.getcwd(),
                      "home": os.environ.get("HOME"), "quick": course_settings.QUICK,
                      "data_root": str(course_settings.data_root())}))


_kernel_facts()
del _kernel_facts
"""


def take_the_lesson(hub: Hub, name: str, repository: str, values=(2.0,)) -> Lesson:
    """One learner's visit: log in, start their server, pull the course (the nbgitpuller link),
    open notebook 03 and run all its cells, then move the SquashExplorer's ``||s||`` slider to
    each of ``values`` in turn, each time waiting for the readout it redraws (the last one is
    ``readout_after``)."""
    learner, clock = Learner(hub, name), time.perf_counter
    t0 = clock()
    learner.log_in()
    t1 = clock()
    memory = None
    try:
        learner.start_server()
        memory = MemorySampler(hub, name).start()
        t2 = clock()
        learner.pull(repository)
        t3 = clock()
        kernel = learner.open_notebook()
        try:
            run = run_cells(kernel, learner.notebook())
            facts = json.loads(kernel.execute(FACTS))
            latencies = []
            for value in values:
                after, latency = kernel.move_control(facts["norm"], value, facts["readout"])
                latencies.append(latency)
            state = json.loads(kernel.execute(
                "import dataclasses, json; print(json.dumps(dataclasses.asdict(explorer.state)))"))
        finally:
            kernel.close()
    finally:
        if memory is not None:
            memory.stop()
    return Lesson(name, t1 - t0, t2 - t1, t3 - t2, run, latencies, memory.peak, memory.high_water,
                  facts.pop("readout_value"), after, state, facts)
