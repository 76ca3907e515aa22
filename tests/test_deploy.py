"""The service files (issue 14, item 4): the systemd unit and the container image.
No container engine runs here, so the image is checked against the checkout (every
file it copies exists, it runs as a user of its own, its command is pbp's), and the
unit by ``systemd-analyze verify`` with the checkout standing in for ``/opt/pbp``."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

from click.testing import CliRunner

from pbp.cli import main

REPO = Path(__file__).resolve().parent.parent
DEPLOY = REPO / "deploy"


def unit_settings() -> dict[str, list[str]]:
    settings: dict[str, list[str]] = {}
    for line in (DEPLOY / "pbp.service").read_text(encoding="utf-8").splitlines():
        if "=" in line and not line.startswith("#"):
            key, _eq, value = line.partition("=")
            settings.setdefault(key.strip(), []).append(value.strip())
    return settings


def test_the_systemd_unit_verifies_and_runs_pbp_run_with_reload_and_restart(
    tmp_path: Path,
) -> None:
    unit = tmp_path / "pbp.service"
    text = (DEPLOY / "pbp.service").read_text(encoding="utf-8")
    unit.write_text(text.replace("/opt/pbp", str(REPO)), encoding="utf-8")
    (REPO / ".venv" / "bin" / "pbp").stat()  # the command it names exists here
    done = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", str(unit)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    settings = unit_settings()
    command = shlex.split(settings["ExecStart"][0])
    assert command[0] == "/opt/pbp/.venv/bin/pbp" and command[-1] == "run"
    result = CliRunner().invoke(main, [*command[1:], "--help"])
    assert result.exit_code == 0, result.output
    assert settings["ExecReload"] == ["/bin/kill -HUP $MAINPID"]
    assert settings["Restart"] == ["on-failure"]
    # pbp run's refusal of a lost store (exit 2) is never restarted into.
    assert settings["RestartPreventExitStatus"] == ["2"]
    assert settings["User"] == ["pbp"] and settings["EnvironmentFile"] == ["/etc/pbp/pbp.env"]
    assert command[2].startswith(settings["ReadWritePaths"][0] + "/")  # games.yaml, the store


def test_the_container_image_copies_real_files_runs_as_its_own_user_and_runs_pbp() -> None:
    lines = [
        line
        for line in (DEPLOY / "Dockerfile").read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    ]
    copies = [line.split()[1:-1] for line in lines if line.startswith("COPY ")]
    assert copies == [["pyproject.toml", "README.md"], ["pbp"], ["templates"], ["games.yaml"]]
    assert all((REPO / source).exists() for sources in copies for source in sources)
    users = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert users == ["pbp"]
    assert any(re.match(r"RUN useradd .*--uid 10001 .* pbp$", line) for line in lines)
    (cmd,) = [line for line in lines if line.startswith("CMD ")]
    assert cmd == 'CMD ["pbp", "run"]'
    assert 'VOLUME ["/data"]' in lines
    assert any(line.startswith("ENV PBP_CONFIG=/data/games.yaml") for line in lines)
    assert CliRunner().invoke(main, ["run", "--help"]).exit_code == 0
    compose = (DEPLOY / "compose.yaml").read_text(encoding="utf-8")
    assert "dockerfile: deploy/Dockerfile" in compose and "- ./data:/data" in compose


def test_the_readme_gives_the_exact_commands_that_verify_the_unit(tmp_path: Path) -> None:
    """Issue 31: ``systemd-analyze verify deploy/pbp.service`` fails in a checkout (the
    unit names /opt/pbp); the README's command for a checkout, run as written (its
    /tmp file moved into the test's folder), verifies it silently, and the README and
    the unit say the command for the installed unit."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    (command,) = [
        line for line in readme.splitlines() if line.startswith('sed "s|/opt/pbp|$PWD|g"')
    ]
    assert command == (
        'sed "s|/opt/pbp|$PWD|g" deploy/pbp.service > /tmp/pbp.service '
        "&& systemd-analyze verify /tmp/pbp.service"
    )
    done = subprocess.run(
        ["bash", "-c", command.replace("/tmp/pbp.service", str(tmp_path / "pbp.service"))],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    installed = "sudo systemd-analyze verify /etc/systemd/system/pbp.service"
    assert installed in readme
    assert installed in (DEPLOY / "pbp.service").read_text(encoding="utf-8")
    # As shipped, outside /opt/pbp, it fails with the reason the README gives.
    assert "Command\n/opt/pbp/.venv/bin/pbp is not executable" in readme
    if Path("/opt/pbp/.venv/bin/pbp").exists():
        return  # pbp is installed here: the shipped unit verifies as it is
    shipped = subprocess.run(
        ["systemd-analyze", "verify", str(DEPLOY / "pbp.service")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shipped.returncode == 1
    assert "Command /opt/pbp/.venv/bin/pbp is not executable" in shipped.stderr
