"""The service's OpenAPI 3.0 description (GET /openapi.json), built from the same names the code answers with: the
methods and verifications of landing.core.matching.readings, the fetch policies of landing.core.matching.cascade, the output formats,
the limits set."""

from landing.core.matching.cascade import FETCHES
from landing.core.matching.events import FORMATS
from landing.core.matching.readings import CHECKS, METHODS, VERIFICATIONS

NDJSON = "application/x-ndjson"


def _error(description: str) -> dict:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }


def _schemas() -> dict:
    nullable = {"type": "string", "nullable": True}
    return {
        "Attempt": {
            "type": "object",
            "description": "One evidence record: the step, what it tried, what came of it, the requests it made.",
            "required": ["step", "candidate", "outcome", "requests"],
            "properties": {
                "step": {"type": "string"},
                "candidate": nullable,
                "outcome": {"type": "string"},
                "requests": {"type": "integer", "minimum": 0},
            },
        },
        "Result": {
            "type": "object",
            "description": "Exactly the object `scrapy match` prints for the input (docs/data-model.md), without "
            '"number". The evidence names the artifact version a match was decided with (step "artifact").',
            "required": ["input", "doi", "method", "verification", "checks", "url", "subj_id", "evidence"],
            "properties": {
                "input": {"type": "string"},
                "doi": nullable,
                "method": {"type": "string", "nullable": True, "enum": [*METHODS, None]},
                "verification": {"type": "string", "nullable": True, "enum": [*VERIFICATIONS, None]},
                "checks": {
                    "type": "array",
                    "description": 'The finer evidence behind the verification (docs/matching.md "Verification").',
                    "items": {"type": "string", "enum": list(CHECKS)},
                },
                "url": nullable,
                "subj_id": nullable,
                "evidence": {"type": "array", "items": {"$ref": "#/components/schemas/Attempt"}},
                "matches": {
                    "type": "array",
                    "description": "Free text only: every URL's and DOI's own match, in text order.",
                    "items": {"$ref": "#/components/schemas/Result"},
                },
            },
        },
        "EventLine": {
            "type": "object",
            "description": "format=event: the input, its Events (one per DOI found, in text order; none without a "
            "DOI) and the evidence record beside them; landing/schemas/event.schema.json is its JSON Schema "
            '(docs/matching.md "Event-shaped output").',
            "required": ["input", "events", "evidence"],
            "properties": {
                "input": {"type": "string"},
                "events": {"type": "array", "items": {"$ref": "#/components/schemas/Event"}},
                "evidence": {
                    "type": "object",
                    "required": ["matches", "attempts"],
                    "properties": {
                        "matches": {
                            "type": "array",
                            "description": "One per Event, in order: the match's checks and the landing page's own "
                            "final URL and subject URL (the flat result's url and subj_id).",
                            "items": {
                                "type": "object",
                                "required": ["obj_id", "checks", "landing_page_url", "landing_page_id"],
                                "properties": {
                                    "obj_id": {"type": "string"},
                                    "checks": {"type": "array", "items": {"type": "string", "enum": list(CHECKS)}},
                                    "landing_page_url": nullable,
                                    "landing_page_id": nullable,
                                },
                            },
                        },
                        "attempts": {"type": "array", "items": {"$ref": "#/components/schemas/Attempt"}},
                    },
                },
            },
        },
        "Event": {
            "type": "object",
            "description": "The Event fields the matcher knows; subj and subj_id come from the citing page (subj).",
            "required": ["subj_id", "obj_id", "obj"],
            "properties": {
                "subj_id": nullable,
                "obj_id": {"type": "string", "description": "https://doi.org/ and the DOI."},
                "subj": {"type": "object", "properties": {"pid": {"type": "string"}, "url": {"type": "string"}}},
                "obj": {
                    "type": "object",
                    "required": ["pid", "url", "method", "verification"],
                    "properties": {
                        "pid": {"type": "string"},
                        "url": {"type": "string", "description": "The URL as cited; the pid when a DOI or PII was."},
                        "method": {"type": "string", "enum": list(METHODS)},
                        "verification": {"type": "string", "enum": list(VERIFICATIONS)},
                    },
                },
            },
        },
        "Error": {
            "type": "object",
            "required": ["error", "status"],
            "properties": {
                "error": {"type": "string"},
                "status": {"type": "integer"},
                "line": {"type": "integer", "description": "POST only: the body's line (from 1) the error is about."},
            },
        },
        "Health": {
            "type": "object",
            "required": ["status", "artifact", "artifact_loaded"],
            "properties": {
                "status": {
                    "type": "string",
                    "enum": ["ok", "degraded", "starting", "draining"],
                    "description": "degraded: an input has waited for a page slot longer than the service's bound "
                    "(saturated: `why` says how long).",
                },
                "artifact": {"type": "string", "description": 'The artifact version answers name ("" without one).'},
                "artifact_loaded": {"type": "string", "description": "When it was loaded (UTC, ISO 8601)."},
                "artifact_reloads": {"type": "integer"},
                "inputs": {"type": "integer"},
                "in_flight": {"type": "integer"},
                "page_slots": {"type": "integer", "description": "Inputs that may do page work at once."},
                "page_slots_held": {"type": "integer", "description": "Of which held now."},
                "waiting": {"type": "integer", "description": "Inputs waiting for a page slot."},
                "longest_wait": {"type": "number", "description": "Seconds the input waiting longest has waited."},
                "why": {"type": "string", "description": "degraded only: why."},
            },
        },
    }


def document(version: str, fetch_default: str, max_body: int, max_input: int, client_concurrency: int) -> dict:
    """The OpenAPI document; `version`: the API's, the fetch default (LANDING_MATCH_FETCH) and the limits: the
    service's settings."""
    fetch = {
        "name": "fetch",
        "in": "query",
        "required": False,
        "description": "none: no page fetched, no DOI resolved; known: only URLs (alone or in free text) whose host "
        "the artifact lists are fetched, others get the evidence record not-fetched; all: every URL is. The default: "
        "LANDING_MATCH_FETCH.",
        "schema": {"type": "string", "enum": list(FETCHES), "default": fetch_default},
    }
    shaping = [
        {
            "name": "format",
            "in": "query",
            "required": False,
            "description": "flat: the Result; event: an EventLine, the Events an Event Data consumer reads.",
            "schema": {"type": "string", "enum": list(FORMATS), "default": "flat"},
        },
        {
            "name": "subj",
            "in": "query",
            "required": False,
            "description": "format=event only: the citing page (an http(s) URL), the Events' subject.",
            "schema": {"type": "string"},
        },
    ]
    answer = {"oneOf": [{"$ref": "#/components/schemas/Result"}, {"$ref": "#/components/schemas/EventLine"}]}
    limits = {
        "400": _error(
            "No q, a fetch policy not one of none, known, all, a format not flat or event, a subj that is not an "
            "http(s) URL or without format=event, or a body that is not JSON lines."
        ),
        "413": _error(f"A body over {max_body:,} bytes or an input over {max_input:,} characters."),
        "429": _error(f"The client (its address) has {client_concurrency} requests in flight already."),
        "408": _error("A POST body that sent no byte for a while; the connection is closed."),
        "414": _error("A request target over 8,190 bytes: send a long input by POST."),
        "431": _error("A request head with a field over 4,096 bytes, over 32 fields, or over 16 KiB in all."),
        "503": _error(
            "The service is starting or draining (stopping), or the connection is past the caps on connections."
        ),
    }
    return {
        "openapi": "3.0.3",
        "info": {
            "title": "landing matching service",
            "version": version,
            "description": "URLs, DOIs and free text matched to DOIs, with method, verification and evidence, from "
            "the latest artifact (docs/service.md).",
        },
        "paths": {
            "/match": {
                "get": {
                    "summary": "Match one input",
                    "parameters": [
                        {
                            "name": "q",
                            "in": "query",
                            "required": True,
                            "description": "A URL, a DOI, or free text.",
                            "schema": {"type": "string", "maxLength": max_input},
                        },
                        fetch,
                        *shaping,
                    ],
                    "responses": {
                        "200": {
                            "description": "The input's result, in the format asked for.",
                            "content": {"application/json": {"schema": answer}},
                        },
                        **limits,
                    },
                },
                "post": {
                    "summary": "Match many inputs: JSON lines in, NDJSON out, in input order, streamed",
                    "parameters": [fetch, *shaping],
                    "requestBody": {
                        "required": True,
                        "description": 'One JSON value a line: a string (the input), or {"q": string, "fetch": '
                        'string, "format": string, "subj": string} (the query\'s are the defaults); blank lines are '
                        "skipped.",
                        "content": {NDJSON: {"schema": {"type": "string"}}},
                    },
                    "responses": {
                        "200": {
                            "description": "One line a non-blank input line, in input order, each written when it "
                            "and every line before it are ready: a Result, or an Error naming the bad line.",
                            "content": {
                                NDJSON: {
                                    "schema": {
                                        "oneOf": [
                                            {"$ref": "#/components/schemas/Result"},
                                            {"$ref": "#/components/schemas/EventLine"},
                                            {"$ref": "#/components/schemas/Error"},
                                        ]
                                    }
                                }
                            },
                        },
                        **limits,
                    },
                },
            },
            "/healthz": {
                "get": {
                    "summary": "Whether the service answers, and with which artifact",
                    "responses": {
                        "200": {
                            "description": "Ready.",
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Health"}}},
                        },
                        "503": {
                            "description": "Degraded (saturated: inputs wait too long for a page slot), starting "
                            "or draining.",
                            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Health"}}},
                        },
                    },
                }
            },
            "/metrics": {
                "get": {
                    "summary": "Prometheus metrics (text format)",
                    "responses": {
                        "200": {
                            "description": "The metrics.",
                            "content": {"text/plain": {"schema": {"type": "string"}}},
                        }
                    },
                }
            },
            "/openapi.json": {
                "get": {
                    "summary": "This document",
                    "responses": {
                        "200": {
                            "description": "OpenAPI 3.0.",
                            "content": {"application/json": {"schema": {"type": "object"}}},
                        }
                    },
                }
            },
        },
        "components": {"schemas": _schemas()},
    }
