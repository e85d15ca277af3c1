"""The sampler with its blob store in S3 (moto's server over HTTP): bodies and snapshot JSON land there."""

import boto3

from tests import s3server
from tests.sampler.crawling import SMALL_SAMPLE, Stores


def test_a_crawl_stores_each_body_and_its_snapshot_json_in_s3_and_analyze_reads_them_back(
    small_sandbox, tmp_path, monkeypatch
):
    s3server.use(monkeypatch)
    bucket = s3server.bucket("landing-crawl")
    stores = Stores(tmp_path, blobs=f"s3://{bucket}/crawl", env=s3server.environment())
    # Every body lands in S3 whatever the sample's size: a small one, fewer objects for moto to hold.
    stores.crawl(small_sandbox.proxy, *SMALL_SAMPLE)
    hashes = {d["snapshot/content-hash"] for d in stores.export("snapshot") if d["snapshot/content-hash"]}
    client = boto3.client("s3", endpoint_url=s3server.endpoint())
    pages = client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix="crawl/")
    keys = {item["Key"] for page in pages for item in page.get("Contents", [])}
    assert hashes and keys == {f"crawl/snapshot/{h}" for h in hashes} | {f"crawl/snapshot/{h}.json" for h in hashes}
    done = stores.scrapy("analyze")
    assert done.returncode == 0, done.stderr[-2000:]
    assert " 0 analyses changed, 0 skipped" in done.stdout
