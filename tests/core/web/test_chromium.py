import os

from landing import settings
from landing.core.web.chromium import CHROMIUM, HEADLESS_SHELL, default_chromium


def test_default_chromium_is_the_headless_shell_when_it_is_executable():
    assert default_chromium(lambda path: True) == HEADLESS_SHELL


def test_default_chromium_is_chromium_when_only_chromium_is_executable():
    assert default_chromium(lambda path: path == CHROMIUM) == CHROMIUM


def test_default_chromium_is_chromium_when_neither_is_executable():
    assert default_chromium(lambda path: False) == CHROMIUM


def test_landing_chromium_setting_is_the_default_chosen_on_this_machine():
    assert settings.LANDING_CHROMIUM == default_chromium(lambda path: os.access(path, os.X_OK))
