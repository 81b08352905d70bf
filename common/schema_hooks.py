"""Post-processing of the OpenAPI schema drf-spectacular generates."""

UNSUPPORTED_MEDIA_TYPE = {
    "description": (
        "The body's content type is not accepted, or a multipart body could not be read: send "
        "JSON (multipart only where the operation takes a file)."
    ),
    "content": {
        "application/json": {
            "schema": {"type": "object", "properties": {"detail": {"type": "string"}}}
        }
    },
}


def document_unsupported_media_type(result, generator, request, public):
    """Every operation that reads a body can answer 415: DRF refuses a content type no parser
    of the view accepts, and a multipart body whose parts cannot be read, before the view runs."""
    for path in result.get("paths", {}).values():
        for operation in path.values():
            if isinstance(operation, dict) and "requestBody" in operation:
                operation.setdefault("responses", {}).setdefault("415", UNSUPPORTED_MEDIA_TYPE)
    return result
