"""landing.browser.driver.launcher: the script Chromium is started through, run with a stand-in for Chromium."""

import subprocess

import pytest

from landing.browser.driver import launcher


def test_the_chromium_script_lowers_its_session_group_only_when_it_leads_the_session(tmp_path):
    # Playwright starts Chromium in a session of its own; where the kernel groups processes by session, niceness does
    # not reach past the group.
    try:
        with open("/proc/self/autogroup") as group:
            own = group.read()
    except OSError:
        pytest.skip("this kernel has no session groups (CONFIG_SCHED_AUTOGROUP)")
    script = tmp_path / "chromium"
    script.write_text(launcher("/bin/cat", 7, "/usr/bin/nice", None))
    script.chmod(0o700)
    leading = subprocess.run([script, "/proc/self/autogroup"], capture_output=True, text=True, start_new_session=True)
    following = subprocess.run([script, "/proc/self/autogroup"], capture_output=True, text=True)
    with open("/proc/self/autogroup") as group:
        after = group.read()
    assert (leading.stdout.endswith(" nice 7\n"), leading.stdout != own) == (True, True)
    assert (following.stdout, after) == (own, own)  # not leading its session: the crawl's own group is never touched


def test_the_chromium_script_gives_chromium_each_switch_it_reads_once_once_with_every_value(tmp_path):
    # Chromium keeps the last of a repeated switch: Playwright's own features and blink settings came before ARGS'.
    script = tmp_path / "chromium"
    script.write_text(launcher("/usr/bin/printf", 0, None, None))
    script.chmod(0o700)
    args = ["--a", "--disable-features=X,Y", "--blink-settings=hover=2", "--b", "--disable-features=Z"]
    args += ["--blink-settings=imagesEnabled=false", "--enable-features=", "--c"]
    printed = subprocess.run([script, "%s\\n", *args], capture_output=True, text=True, check=True).stdout.split()
    assert printed == ["--a", "--disable-features=X,Y,Z", "--blink-settings=hover=2,imagesEnabled=false", "--b", "--c"]
