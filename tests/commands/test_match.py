"""`scrapy match` refuses bad settings up front, as `scrapy crawl` does, and prints every result it has, in order."""
import json

from landing.commands.match import _Printer
from tests.sampler.crawling import Stores


def test_a_bad_setting_is_named_with_exit_code_2_and_no_traceback(tmp_path):
    done = Stores(tmp_path).scrapy("match", "https://example.org/article/1", overrides=[
        "-s", "LANDING_RESOLVER_ROBOTS=maybe", "-s", "LANDING_MATCH_CONCURRENCY=many"])
    assert done.returncode == 2
    assert "LANDING_RESOLVER_ROBOTS='maybe': use ignore or obey" in done.stderr
    assert "LANDING_MATCH_CONCURRENCY='many' is not a number" in done.stderr
    assert "Traceback" not in done.stderr


def _printed(capsys, numbers, total, quiet=False):
    printer = _Printer(total, quiet)
    for number in numbers:
        printer.scraped({"number": number, "input": str(number)})
    held = len(printer.results)
    printer.finish()
    out, err = capsys.readouterr()
    return [json.loads(line)["input"] for line in out.splitlines()], held, err


def test_results_are_printed_in_input_order_and_forgotten_once_printed(capsys):
    printed, held, _ = _printed(capsys, [1, 0, 2], 3)
    assert (printed, held) == (["0", "1", "2"], 0)


def test_results_behind_an_input_that_never_finished_are_printed_at_the_end_not_withheld(capsys):
    printed, held, err = _printed(capsys, [0, 2, 3], 4)
    assert (printed, held) == (["0", "2", "3"], 2)
    assert "1 lost" in err


def test_an_evaluation_keeps_every_result_and_prints_none(capsys):
    printed, held, _ = _printed(capsys, [0, 1], 2, quiet=True)
    assert (printed, held) == ([], 2)
