"""The S3 blob store (`LANDING_BLOBS=s3://bucket/prefix`): boto3 with its usual configuration.

Endpoint, region and credentials come from boto3's own chain (AWS_ENDPOINT_URL, AWS_PROFILE, the
environment, instance roles), so a local S3 (moto, MinIO) and AWS are configured the same way.
"""

import io

import boto3
from botocore.exceptions import BotoCoreError, ClientError

from landing.stores.base import BlobStore
from landing.stores.checks import StoreError

_MISSING = {"404", "NoSuchKey", "NotFound"}


def _code(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Code", ""))


class S3BlobStore(BlobStore):
    """Key `snapshot/<hash>` lives at `s3://<bucket>/<prefix>/snapshot/<hash>`."""

    def __init__(self, bucket: str, prefix: str = "", *, client=None):
        self.bucket, self.prefix = bucket, prefix.strip("/")
        self.client = client or boto3.client("s3")
        try:
            self.client.head_bucket(Bucket=bucket)
        except ClientError as error:
            raise StoreError(f"cannot use bucket {bucket!r}: {_code(error) or error}") from None
        except BotoCoreError as error:
            raise StoreError(f"cannot reach S3 for bucket {bucket!r}: {error}") from None

    def __repr__(self):
        return f"S3BlobStore({self.bucket!r}, {self.prefix!r})"

    def _key(self, key: str) -> str:
        return f"{self.prefix}/{key}" if self.prefix else key

    def _put(self, key, data):
        if self._exists(key):
            return False  # content-addressed: the object there already holds these bytes
        # upload_fileobj is boto3's managed transfer: large bodies go up in parts, retried per part.
        self.client.upload_fileobj(io.BytesIO(data), self.bucket, self._key(key))
        return True

    def _get(self, key):
        try:
            return self.client.get_object(Bucket=self.bucket, Key=self._key(key))["Body"].read()
        except ClientError as error:
            if _code(error) in _MISSING:
                return None
            raise

    def _exists(self, key):
        try:
            self.client.head_object(Bucket=self.bucket, Key=self._key(key))
            return True
        except ClientError as error:
            if _code(error) in _MISSING:
                return False
            raise

    def _keys(self, prefix):
        return (key for key, _ in self._listing(prefix))

    def _listing(self, prefix):
        start = self._key(prefix) if prefix else (self.prefix + "/" if self.prefix else "")
        cut = len(self.prefix) + 1 if self.prefix else 0
        for page in self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=start):
            for item in page.get("Contents", []):
                yield item["Key"][cut:], item["LastModified"].timestamp()

    def _delete(self, keys):
        objects = [{"Key": self._key(key)} for key in keys]
        try:
            # Quiet: the answer lists only the keys that could not be deleted (a missing key counts as deleted).
            answer = self.client.delete_objects(Bucket=self.bucket, Delete={"Objects": objects, "Quiet": True})
        except ClientError as error:
            raise StoreError(
                f"cannot delete {len(keys)} blobs from bucket {self.bucket!r}: {_code(error) or error}"
            ) from None
        except BotoCoreError as error:
            raise StoreError(
                f"cannot reach S3 to delete {len(keys)} blobs from bucket {self.bucket!r}: {error}"
            ) from None
        errors = answer.get("Errors") or []
        if errors:
            first = errors[0]
            raise StoreError(
                f"bucket {self.bucket!r} refused to delete {len(errors)} of {len(keys)} blobs; the first, "
                f"{first.get('Key')!r}: {first.get('Code')} {first.get('Message')}"
            )

    def close(self):
        self.client.close()
