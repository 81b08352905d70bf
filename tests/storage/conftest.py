"""A real S3-compatible server (moto's, over HTTP on a free port) for the tests of object storage.

`s3_server` starts it once per run; `s3` gives a test a fresh private bucket and switches the
default storage to django-storages' S3 backend for it, exactly as S3_BUCKET does in
config/settings/base.py. The app only ever talks HTTP to the server.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import boto3
import pytest
from botocore.config import Config

from tests.embedded import free_port

REGION = "us-east-1"
ACCESS_KEY = "shortlist-test-key"
SECRET_KEY = "shortlist-test-secret"
PREFIX = "shortlist"


@dataclass
class MotoServer:
    server: object
    endpoint: str

    def client(self):
        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            region_name=REGION,
            aws_access_key_id=ACCESS_KEY,
            aws_secret_access_key=SECRET_KEY,
            config=Config(s3={"addressing_style": "path"}),
        )


def start_moto() -> MotoServer:
    from moto.server import ThreadedMotoServer

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    return MotoServer(server=server, endpoint=f"http://127.0.0.1:{port}")


@pytest.fixture(scope="session")
def s3_server():
    moto = start_moto()
    yield moto
    moto.server.stop()


def storage_options(endpoint: str, bucket: str) -> dict:
    """What base.py builds from S3_BUCKET, S3_ENDPOINT_URL, S3_REGION, the keys and S3_PREFIX."""
    return {
        "bucket_name": bucket,
        "endpoint_url": endpoint,
        "region_name": REGION,
        "access_key": ACCESS_KEY,
        "secret_key": SECRET_KEY,
        "location": PREFIX,
        "addressing_style": "path",
        "default_acl": None,
        "file_overwrite": False,
        "querystring_auth": True,
        "max_memory_size": 2 * 1024 * 1024,
    }


def s3_env(endpoint: str, bucket: str) -> dict[str, str]:
    """The environment that gives a process started by a test the same bucket."""
    return {
        "S3_BUCKET": bucket,
        "S3_ENDPOINT_URL": endpoint,
        "S3_REGION": REGION,
        "S3_ACCESS_KEY_ID": ACCESS_KEY,
        "S3_SECRET_ACCESS_KEY": SECRET_KEY,
        "S3_PREFIX": PREFIX,
    }


@dataclass
class Bucket:
    name: str
    endpoint: str
    client: object

    def keys(self, under: str = "") -> list[str]:
        """Every object key in the bucket (under `PREFIX/under`), as S3 lists them."""
        pages = self.client.get_paginator("list_objects_v2").paginate(
            Bucket=self.name, Prefix=f"{PREFIX}/{under}"
        )
        return sorted(o["Key"] for page in pages for o in page.get("Contents", ()))

    def read(self, name: str) -> bytes:
        return self.client.get_object(Bucket=self.name, Key=f"{PREFIX}/{name}")["Body"].read()

    def env(self) -> dict[str, str]:
        return s3_env(self.endpoint, self.name)


@pytest.fixture
def s3(s3_server, settings):
    """A fresh bucket, and the default storage switched to it for this test."""
    client = s3_server.client()
    name = f"shortlist-{uuid.uuid4().hex[:12]}"
    client.create_bucket(Bucket=name)
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": storage_options(s3_server.endpoint, name),
        },
    }
    return Bucket(name=name, endpoint=s3_server.endpoint, client=client)
