"""pbem as an operator deploys it, for the end-to-end tests: the operator's files from
deploy/ with the operator's values replaced (domain, paths, ports, the service user),
/opt/pbem installed from a wheel of this checkout, and a pbem unit from deploy/systemd
run as a child process with its user, working directory and environment.

What an operator copies from `deploy/` is used as it is, with only those values
substituted: the Postfix snippets, the transport map, the pipe service, the environment
file and the worker's unit.
"""

from __future__ import annotations

import atexit
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

from loopback_services import (DEPLOY, PBEM_DOMAIN, REPO, SERVICE_GROUP, SERVICE_USER,
                               ServiceFailed, free_port, listening, scratch_directory,
                               wait_for)


# --- the operator's files from deploy/, with the operator's values replaced -------------

@dataclass
class Site:
    """The values an operator fills in, and what they are on this test machine."""
    root: Path  # the scratch directory everything lives in
    lmtp_port: int  # PBEM_LMTP_LISTEN of the worker
    relay_port: int  # Postfix's SMTP listener: players' mail and pbem's relay
    http_port: int = field(default_factory=free_port)
    settings: dict[str, str] = field(default_factory=dict)  # the environment file's

    @property
    def state(self) -> Path:
        return self.root / "state"  # /var/lib/pbem

    @property
    def env_file(self) -> Path:
        return self.root / "etc" / "pbem.env"  # /etc/pbem/pbem.env

    @property
    def postfix_config(self) -> Path:
        return self.root / "postfix"  # /etc/postfix

    @property
    def install(self) -> Path:
        return self.root / "opt-pbem"  # /opt/pbem: deploy/ and the .venv pbem is installed in

    def substitutions(self) -> list[tuple[str, str]]:
        # Longest first, so a path is replaced before a shorter one it contains.
        return [
            ("/etc/pbem/pbem.env", str(self.env_file)),
            ("/etc/pbem/pbem-worker-", str(self.env_file.parent / "pbem-worker-")),
            ("/etc/postfix", str(self.postfix_config)),
            ("/var/lib/pbem", str(self.state)),
            ("/opt/pbem", str(self.install)),
            ("pbem.example.org", PBEM_DOMAIN),
            ("127.0.0.1:8024", f"127.0.0.1:{self.lmtp_port}"),
            ("127.0.0.1:8000", f"127.0.0.1:{self.http_port}"),
            ("127.0.0.1:25", f"127.0.0.1:{self.relay_port}"),
            ("user=pbem", f"user={SERVICE_USER}"),
        ]

    def deployed(self, name: str) -> str:
        """deploy/NAME as this machine's operator would install it."""
        text = (DEPLOY / name).read_text()
        for operator_value, here in self.substitutions():
            text = re.sub(re.escape(operator_value) + r"(?![\w])", here, text)
        return text

    def write_env_file(self, settings: dict[str, str]) -> dict[str, str]:
        """deploy/pbem.env.example with some values set, as an operator edits it."""
        lines = self.deployed("pbem.env.example").splitlines()
        for key, value in settings.items():
            for number, line in enumerate(lines):
                if re.match(rf"#?\s*{key}=", line):
                    lines[number] = f"{key}={value}"
                    break
            else:
                raise AssertionError(f"deploy/pbem.env.example has no {key}")
        self.env_file.parent.mkdir(parents=True, exist_ok=True)
        self.env_file.write_text("\n".join(lines) + "\n")
        self.env_file.chmod(0o644)
        self.settings = read_env_file(self.env_file)
        return self.settings


def install_pbem(site: Site) -> None:
    """/opt/pbem as an operator installs it: a virtualenv with pbem pip-installed from a
    wheel built from this checkout's files (its dependencies from pip's usual sources, at
    the versions the tests run with), and deploy/ beside it.

    Nothing in it points back into the checkout, which the service user may not be able
    to read (a clone under /root, or in `mktemp -d`). It is built once per test run, in a
    scratch directory the service user can read, and each site's /opt/pbem links to it.
    """
    if "opt" not in _INSTALLED:
        _INSTALLED["opt"] = _build_install()
    site.install.symlink_to(_INSTALLED["opt"], target_is_directory=True)


_INSTALLED: dict[str, Path] = {}  # built once per test run (install_pbem)


def _build_install() -> Path:
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    interpreter = next((c for c in (sys._base_executable, f"/usr/bin/python{version}",
                                    f"/usr/local/bin/python{version}")
                        if _runs_as_service_user(c)), None)
    if interpreter is None:
        raise ServiceFailed(f"no Python {version} that {SERVICE_USER} may run")
    root = scratch_directory("pbem-opt-")
    atexit.register(shutil.rmtree, root, True)
    # The wheel is built from a copy of the files, so the checkout gets no build/ and
    # the build sees what is in the working tree, committed or not.
    sources = root / "source"
    shutil.copytree(REPO, sources, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache"))
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(root / "wheel"),
          str(sources)], "building pbem's wheel")
    shutil.rmtree(sources)
    (wheel,) = (root / "wheel").glob("pbem-*.whl")
    constraints = root / "constraints.txt"
    constraints.write_text(_run([sys.executable, "-m", "pip", "freeze", "--exclude-editable"],
                                "listing the tests' packages"))
    _run([interpreter, "-m", "venv", str(root / ".venv")], "making /opt/pbem/.venv")
    _run([str(root / ".venv" / "bin" / "python"), "-m", "pip", "install", "-q",
          "-c", str(constraints), str(wheel)], "pip install of pbem's wheel into /opt/pbem")
    shutil.copytree(DEPLOY, root / "deploy")  # a checkout has it beside the .venv
    return root


def _run(command: list[str], what: str) -> str:
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, cwd="/")
    if done.returncode != 0:
        raise ServiceFailed(f"{what} failed ({done.returncode}): {' '.join(command)}\n"
                            f"{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
    return done.stdout


def _runs_as_service_user(interpreter: str) -> bool:
    if not Path(interpreter).exists():
        return False
    user = {"user": SERVICE_USER, "group": SERVICE_GROUP} if os.geteuid() == 0 else {}
    try:
        return subprocess.run([interpreter, "-c", "pass"], cwd="/", capture_output=True,
                              timeout=60, **user).returncode == 0
    except OSError:
        return False


def read_env_file(path: Path) -> dict[str, str]:
    """KEY=value lines as systemd's EnvironmentFile= reads them."""
    settings = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")) or "=" not in line:
            continue
        key, value = line.split("=", 1)
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        settings[key.strip()] = value
    return settings


def read_unit(text: str) -> dict[str, list[str]]:
    """The [Service] settings of a systemd unit, each key with all its values."""
    service, section = {}, None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line
        elif section == "[Service]" and "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            service.setdefault(key, []).append(value)
    return service


# --- pbem, as its systemd unit runs it -------------------------------------------------

class PbemService:
    """A pbem unit from deploy/systemd: its ExecStart, user, working directory and
    environment (EnvironmentFile= and Environment=), run as a child process."""

    def __init__(self, site: Site, unit: str = "systemd/pbem-worker.service",
                 drop_in: dict[str, str] | None = None, name: str = "", instance: str = ""):
        self.site = site
        text = site.deployed(unit)
        if instance:  # a template's instance (pbem-worker@2): its specifiers filled in
            text = text.replace("%i", instance).replace("%H", socket.gethostname())
        self.unit = read_unit(text)
        self.drop_in = drop_in or {}  # Environment= of a drop-in, e.g. a second worker's port
        self.name = name or Path(unit).stem.replace("@", f"@{instance}")
        self.process: subprocess.Popen | None = None
        self.output: list[str] = []
        self.runs = 0

    def environment(self) -> dict[str, str]:
        """As systemd builds it (systemd.exec(5)): Environment= lines, a drop-in's after
        the unit's, then EnvironmentFile= files in their order, which override them."""
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
        for assignment in self.unit.get("Environment", []):
            for item in shlex.split(assignment):
                key, _, value = item.partition("=")
                env[key] = value
        env.update(self.drop_in)
        for path in self.unit.get("EnvironmentFile", []):
            if path.startswith("-") and not Path(path[1:]).exists():
                continue  # "-": a file that may be missing
            env.update(read_env_file(Path(path.lstrip("-"))))
        return env

    def command_line(self) -> list[str]:
        """ExecStart with ${VAR} and $VAR expanded from the environment, as systemd does."""
        env = self.environment()
        line = re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: env.get(m[1] or m[2], ""),
                      self.unit["ExecStart"][0])
        return shlex.split(line)

    def as_service_user(self) -> dict:
        if os.geteuid() != 0:
            return {}
        return {"user": SERVICE_USER, "group": SERVICE_GROUP, "extra_groups": [],
                "umask": 0o022}

    def start(self, ready_port: int | None = None) -> "PbemService":
        """Start; ready when `ready_port` (the LMTP listener) takes connections."""
        self.runs += 1
        log = (self.site.root / f"{self.name}.{self.runs}.log").open("w")
        self.process = subprocess.Popen(self.command_line(), env=self.environment(),
                                        cwd=self.unit["WorkingDirectory"][0],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        text=True, **self.as_service_user())
        threading.Thread(target=self._collect, args=(self.process, log), daemon=True).start()
        listen = self.environment().get("PBEM_LMTP_LISTEN", "")
        port = ready_port or (int(listen.rsplit(":", 1)[1]) if listen else None)
        # Without a listener (the pipe alternative), ready once the store it makes answers
        ready, what = ((lambda: listening(port)), f"{self.name} to listen on {port}") \
            if port else (self._store_answers, f"{self.name} to make its store")
        try:
            wait_for(lambda: self.process.poll() is not None or ready(), what, log=self.log)
        except AssertionError as error:
            self.stop()
            raise ServiceFailed(str(error)) from None
        if self.process.poll() is not None:
            raise ServiceFailed(f"{self.name} exited with {self.process.returncode}\n"
                                f"{self.log()}")
        return self

    def _store_answers(self) -> bool:
        """`pbem status` exits 0: the store is there and reachable."""
        executable = Path(self.command_line()[0]).with_name("pbem")
        return subprocess.run([str(executable), "status"], env=self.environment(),
                              cwd=self.unit["WorkingDirectory"][0], capture_output=True,
                              timeout=120, **self.as_service_user()).returncode == 0

    def _collect(self, process: subprocess.Popen, log) -> None:
        with log:
            for line in process.stdout:
                self.output.append(line)
                log.write(line)
                log.flush()

    def log(self) -> str:
        return f"--- {self.name} ---\n" + "".join(self.output[-80:])

    def stop(self) -> int | None:
        """SIGTERM, as systemctl stop sends; returns the exit code."""
        if self.process is None:
            return None
        process, self.process = self.process, None
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
                raise ServiceFailed(f"{self.name} did not stop on SIGTERM\n{self.log()}")
        return process.returncode

    def pbem(self, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
        """Another `pbem` command as the operator runs it: same user, settings, directory."""
        executable = self.command_line()[0]
        pbem = str(Path(executable).with_name("pbem"))
        done = subprocess.run([pbem, *args], env=self.environment(), input=stdin,
                              cwd=self.unit["WorkingDirectory"][0], capture_output=True,
                              timeout=120, **self.as_service_user())
        if done.returncode != 0:
            raise AssertionError(f"pbem {' '.join(args)} failed ({done.returncode}):\n"
                                 f"{done.stdout.decode()}\n{done.stderr.decode()}")
        return done
