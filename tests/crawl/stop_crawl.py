"""A crawl stopped as StopAtOnce stops the sampler, in a process of its own: `python -m tests.crawl.stop_crawl MODE`.

queue: four requests to one host whose slot waits DOWNLOAD_DELAY between them; stopped once the first is answered.
robots: requests waiting on their host's robots.txt, which never answers; stopped once robots.txt is asked for.
Prints {"seconds": from the stop to the spider's close, "answered": pages parsed, "dropped": requests refused}.
"""

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import scrapy
from scrapy.crawler import CrawlerProcess
from scrapy.utils.defer import deferred_from_coro

from landing.crawl.signals import crawl_stopping
from tests.crawl.project import PROJECT

HELD = threading.Event()  # never set: robots.txt is never answered


class Stopping(scrapy.Spider):
    name = "stopping"
    answered, stopped_at = 0, None

    async def start(self):
        for i in range(4):
            yield scrapy.Request(f"http://127.0.0.1:{PORT}/{i}", dont_filter=True, errback=lambda failure: None)

    def parse(self, response):
        self.answered += 1
        self.stop()

    def stop(self):
        if self.stopped_at is None:
            self.stopped_at = time.monotonic()
            self.crawler.signals.send_catch_log(crawl_stopping)
            deferred_from_coro(self.crawler.stop_async())  # Scrapy's own stop, as after StopAtOnce's

    def closed(self, reason):
        dropped = sum(
            count for key, count in self.crawler.stats.get_stats().items() if key.endswith("crawl.stopping.Stopped")
        )
        seconds = round(time.monotonic() - self.stopped_at, 2)
        print(json.dumps({"seconds": seconds, "answered": self.answered, "dropped": dropped}), flush=True)


class Site(BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/robots.txt":
            from twisted.internet import reactor

            reactor.callFromThread(process.crawlers.copy().pop().spider.stop)
            HELD.wait()
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args):
        pass


def main(mode: str) -> None:
    global PORT, process
    server = ThreadingHTTPServer(("127.0.0.1", 0), Site)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    PORT = server.server_address[1]
    process = CrawlerProcess(
        {
            **PROJECT,
            "DOWNLOAD_DELAY": 60,
            "DOWNLOAD_DELAY_JITTER": 0,
            "AUTOTHROTTLE_ENABLED": False,
            "ROBOTSTXT_OBEY": mode == "robots",
            "LANDING_ADDRESS_GUARD": False,  # the site is on 127.0.0.1
            "LOG_LEVEL": "WARNING",
            "TELNETCONSOLE_ENABLED": False,
        }
    )
    process.crawl(Stopping)
    process.start()


if __name__ == "__main__":  # imported, as pytest's doctest collection does, it starts nothing
    main(sys.argv[1])
