"""Validates recorded HTTP exchanges against an OpenAPI document with openapi-core.

Usage: check-openapi-exchanges.py OPENAPI.json EXCHANGES_DIR

EXCHANGES_DIR holds one NAME.json per exchange (written by OpenAPITests):
  {"name": ..., "request_valid": true | false | null,
   "request": {"method", "path", "query": [[k, v]...], "headers": [[k, v]...], "body_file": PATH | null},
   "response": {"status", "headers": [[k, v]...], "body_file": PATH}}
request_valid true: openapi-core's request validator must accept the request; false: it must
reject it (the document itself says why the server refuses); null: not checked (the document
cannot say, e.g. a body sent where an operation takes none). Every response is validated.

Then coverage: every operation the document declares, every media type of its request body and
of its 2xx answers, must appear in at least one exchange whose request was valid, so that a path
added to the document fails here until a request for it is added to the test.

Prints one line per problem and `N exchanges valid` at the end; exits 1 on any problem.
"""

import json
import pathlib
import re
import sys

from openapi_core import Config, OpenAPI
from openapi_core.testing import MockRequest, MockResponse

HTTP_METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}


def media_type(content_type):
    return (content_type or "").split(";")[0].strip().lower()


def header(pairs, name):
    for key, value in pairs:
        if key.lower() == name.lower():
            return value
    return None


def body(spec):
    path = spec.get("body_file")
    return pathlib.Path(path).read_bytes() if path else b""


def describe(error):
    try:
        return f"{type(error).__name__}: {error}"
    except UnicodeDecodeError:  # some openapi-core messages decode the body as UTF-8
        return f"{type(error).__name__}: {error!r}"[:400]


def explain(error):
    """The validator's message with its causes (schema errors sit in __cause__ and .schema_errors)."""
    parts = [describe(error)]
    cause = error.__cause__
    while cause is not None:
        parts.append(describe(cause))
        for schema_error in getattr(cause, "schema_errors", []) or []:
            parts.append(f"  at {'/'.join(map(str, schema_error.absolute_path)) or '$'}: {schema_error.message}")
        cause = cause.__cause__
    # Bodies are quoted whole in some messages: a database's bytes help nobody.
    return " <- ".join(part if len(part) <= 400 else part[:400] + "..." for part in parts)


def resolve(document, value):
    """Follows a local `$ref` (#/components/...) to what it names."""
    while isinstance(value, dict) and "$ref" in value:
        target = document
        for part in value["$ref"].lstrip("#/").split("/"):
            target = target[part]
        value = target
    return value


def template_for(document, path):
    """The document's path template that `path` matches, as openapi-core matches it."""
    for template in document["paths"]:
        pattern = "^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template)) + "$"
        if re.match(pattern, path):
            return template
    return None


def main():
    document_path, exchanges_dir = sys.argv[1], pathlib.Path(sys.argv[2])
    document = json.loads(pathlib.Path(document_path).read_text())
    # The one departure from openapi-core's defaults, and the server's real behaviour: a body
    # sent as application/x-www-form-urlencoded (what `curl --data-binary @app.db` sends) is the
    # raw database, never a form, and the document declares that media type without a schema.
    # openapi-core would decode any such body as a UTF-8 form first, and a database is not UTF-8.
    raw = {"application/x-www-form-urlencoded": lambda value, **parameters: value}
    openapi = OpenAPI.from_dict(document, config=Config(extra_media_type_deserializers=raw))
    problems = []
    seen = set()
    exchanges = sorted(exchanges_dir.glob("*.json"))
    for exchange_file in exchanges:
        exchange = json.loads(exchange_file.read_text())
        name, spec, answer = exchange["name"], exchange["request"], exchange["response"]
        request_body = body(spec)
        request = MockRequest(
            "http://127.0.0.1", spec["method"], spec["path"],
            args=[tuple(pair) for pair in spec["query"]],
            headers=dict(spec["headers"]),
            data=request_body,
            content_type=header(spec["headers"], "Content-Type") or "")
        response = MockResponse(
            body(answer), status_code=answer["status"], headers=dict(answer["headers"]),
            content_type=header(answer["headers"], "Content-Type") or "")
        try:
            openapi.validate_request(request)
            request_error = None
        except Exception as error:  # openapi-core raises one of many OpenAPIError subclasses
            request_error = error
        if exchange["request_valid"] is True and request_error is not None:
            problems.append(f"{name}: request rejected: {explain(request_error)}")
        if exchange["request_valid"] is False and request_error is None:
            problems.append(f"{name}: request accepted, but the test expects the document to refuse it")
        try:
            openapi.validate_response(request, response)
        except Exception as error:
            problems.append(f"{name}: {answer['status']} response rejected: {explain(error)}")
        if exchange["request_valid"] is True:
            template = template_for(document, spec["path"])
            method = spec["method"].lower()
            seen.add((template, method, "operation"))
            if request_body:
                seen.add((template, method, "request " + media_type(header(spec["headers"], "Content-Type"))))
            if 200 <= answer["status"] < 300:
                seen.add((template, method, "response " + media_type(header(answer["headers"], "Content-Type"))))
    for template, item in document["paths"].items():
        for method, operation in item.items():
            if method not in HTTP_METHODS:
                continue
            wanted = ["operation"]
            request_body_spec = resolve(document, operation.get("requestBody", {}))
            wanted += ["request " + media for media in request_body_spec.get("content", {})]
            for status, declared in operation.get("responses", {}).items():
                if status.startswith("2"):
                    wanted += ["response " + media for media in resolve(document, declared).get("content", {})]
            for what in wanted:
                if (template, method, what) not in seen:
                    problems.append(
                        f"{method.upper()} {template}: {what} is declared, but no valid request of the test exercises it")
    for problem in problems:
        print(problem)
    print(f"{len(exchanges)} exchanges, {len(problems)} problems")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
