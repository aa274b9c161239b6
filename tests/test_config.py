"""Settings are checked at start: a bad value names the variable and what it must be, and
every setting pbem reads has its check (a new one without a check fails here)."""

import inspect
import re

import pytest

from pbem.config import CHECKS, Config, SettingsError, read_env_file, validate


def test_every_setting_read_has_a_check():
    read = set(re.findall(r'"(PBEM_[A-Z_]+)"', inspect.getsource(Config.from_environment)))
    assert read and read <= set(CHECKS), f"no check for: {sorted(read - set(CHECKS))}"


@pytest.mark.parametrize("name, value, wanted", [
    ("PBEM_DIGEST_HOUR", "24", "a whole number from 0 to 23"),
    ("PBEM_RATE_LIMIT", "lots", "a whole number, at least 1"),
    ("PBEM_MAX_MESSAGE_BYTES", "1e6", "a whole number, at least 1000"),
    ("PBEM_DATABASE_URL", "mysql://pbem@db/pbem", "sqlite:///FILE"),
    ("PBEM_DATABASE_URL", "/var/lib/pbem/pbem.db", "sqlite:///FILE"),
    ("PBEM_HTTP", "127.0.0.1:80000", "host:port, such as 127.0.0.1:8000"),
    ("PBEM_LMTP_LISTEN", "8024", "host:port, such as 127.0.0.1:8024, or empty for off"),
    ("PBEM_SMTP_RELAY", "smtp example.org", "host or host:port"),
    ("PBEM_DOMAIN", "pbem@example.org", "a domain name"),
    ("PBEM_BASE_URL", "pbem.example.org", "https://pbem.example.org"),
    ("PBEM_LOG_FORMAT", "xml", "one of: text, json"),
    ("PBEM_IMAP_SSL", "maybe", "one of: yes, no"),
    ("PBEM_IMAP_PORT", "imaps", "a whole number from 1 to 65535, or empty"),
    ("PBEM_IMAP_PASSWORD_FILE", "/nonexistent/imap-password", "a file this user can read"),
    ("PBEM_AUTHSERV_ID", "mx example", "one word"),
])
def test_a_bad_value_names_the_variable_and_what_is_wanted(name, value, wanted):
    with pytest.raises(SettingsError) as raised:
        Config.from_environment({name: value}, make_secret=False)
    problem, = raised.value.problems
    assert problem.startswith(f"{name}={value!r} cannot be used: wanted ")
    assert wanted in problem


def test_every_bad_value_is_named_at_once_and_secrets_are_not_repeated():
    problems = validate({"PBEM_DIGEST_HOUR": "x", "PBEM_RATE_LIMIT": "-1",
                         "PBEM_SECRET_KEY": "s3cret", "PBEM_IMAP_PASSWORD": "pw"})
    assert [p.split("=")[0] for p in problems] == ["PBEM_RATE_LIMIT", "PBEM_DIGEST_HOUR"]


def test_the_shipped_example_settings_are_valid():
    from pathlib import Path
    example = Path(__file__).parent.parent / "deploy" / "pbem.env.example"
    assert validate(read_env_file(example)) == []


def test_an_env_file_is_read_literally_as_systemd_reads_it(tmp_path):
    path = tmp_path / "pbem.env"
    path.write_text("# a comment\n; another\n\nPBEM_SECRET_KEY=a$HOME b\\n\n"
                    "PBEM_IMAP_PASSWORD=\"quoted $x\"\n  PBEM_DOMAIN = pbem.example.org \n")
    assert read_env_file(path) == {"PBEM_SECRET_KEY": "a$HOME b\\n",
                                   "PBEM_IMAP_PASSWORD": "quoted $x",
                                   "PBEM_DOMAIN": "pbem.example.org"}


def test_a_line_that_is_not_a_setting_is_named_with_its_number(tmp_path):
    path = tmp_path / "pbem.env"
    path.write_text("PBEM_DOMAIN=pbem.example.org\nexport PBEM_HTTP=127.0.0.1:8000\n")
    with pytest.raises(SettingsError, match=r"line 2: 'export PBEM_HTTP=127.0.0.1:8000' is "
                                            r"not KEY=value"):
        read_env_file(path)


def test_a_misspelt_setting_is_named_with_the_one_meant():
    from pbem.config import unknown_settings
    assert unknown_settings({"PBEM_DATABSE_URL": "sqlite:///x.db", "PBEM_COLOUR": "blue",
                             "PBEM_TEST_DATABASE_URL": "postgresql://localhost/t",
                             "PBEM_DOMAIN": "pbem.example.org", "HOME": "/root"}) == [
        "PBEM_COLOUR is not a pbem setting and is ignored",
        "PBEM_DATABSE_URL is not a pbem setting and is ignored (did you mean "
        "PBEM_DATABASE_URL?)"]
