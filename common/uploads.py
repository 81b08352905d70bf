"""Stop reading an upload as soon as it passes the evidence size limit, instead of receiving a
100 MiB body before refusing it. The only files this app accepts are evidence, so the limit is
EVIDENCE_MAX_BYTES for every upload; the form then says why the file is missing."""

from __future__ import annotations

from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler, StopUpload


class SizeLimitUploadHandler(FileUploadHandler):
    """First in FILE_UPLOAD_HANDLERS: counts the bytes of each file and stops the upload (the
    rest of the body is not read) when one passes the limit, noting its size on the request
    (`request.upload_too_large`)."""

    def new_file(self, *args, **kwargs):
        super().new_file(*args, **kwargs)
        self.received = 0

    def limit(self) -> int:
        """The most one file may hold (a page taking larger files uses a subclass)."""
        return settings.EVIDENCE_MAX_BYTES

    def receive_data_chunk(self, raw_data, start):
        self.received += len(raw_data)
        if self.received > self.limit():
            if self.request is not None:
                self.request.upload_too_large = self.received
            raise StopUpload(connection_reset=True)
        return raw_data  # the next handler stores it

    def file_complete(self, file_size):
        return None
