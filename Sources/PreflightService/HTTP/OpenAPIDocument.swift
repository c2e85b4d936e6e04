/// `/openapi.json`: OpenAPI 3.1 for every route, parameter, error and the report.
/// `OpenAPITests` keeps it true: every status the server answers in the end-to-end
/// tests is documented for its route, and the report schema's required fields are
/// exactly the report's top-level fields.
enum OpenAPIDocument {
    static let bytes: [UInt8] = Array(text.utf8)

    static let text = #"""
{
  "openapi": "3.1.0",
  "info": {
    "title": "Preflight",
    "version": "1",
    "description": "Rehearses an app's SQLite schema migrations on real device databases under a launch watchdog and a nearly full disk (CONTRACT.md). Errors are {\"error\": {\"code\", \"message\"}}. With tokens configured, /v1/* needs `Authorization: Bearer <token>`; /healthz, /metrics and /openapi.json stay open. Any path not listed answers 404 not_found. Requests that are not answered because the client went away are logged and counted with status 499."
  },
  "paths": {
    "/v1/migrations": {
      "post": {
        "summary": "Rehearse a migration plan on an uploaded database.",
        "description": "The body is the database itself (any Content-Type but those listed under 415, e.g. `curl --data-binary @app.db`), or multipart/form-data with parts `database` (required), `wal` (the -wal sidecar), `plan` (a plan JSON document, instead of plan=NAME) and `options` (a JSON object of option name to string or number; it overrides the query). The upload streams to disk. The job runs when a slot is free; the answer is 200 with the report for every outcome. A client that disconnects cancels its job.",
        "security": [
          {
            "bearer": []
          }
        ],
        "parameters": [
          {
            "$ref": "#/components/parameters/plan"
          },
          {
            "$ref": "#/components/parameters/keep"
          },
          {
            "$ref": "#/components/parameters/target"
          },
          {
            "$ref": "#/components/parameters/device"
          },
          {
            "$ref": "#/components/parameters/watchdog_ms"
          },
          {
            "$ref": "#/components/parameters/free_bytes"
          },
          {
            "$ref": "#/components/parameters/launches"
          },
          {
            "$ref": "#/components/parameters/space_check"
          },
          {
            "$ref": "#/components/parameters/verify"
          },
          {
            "$ref": "#/components/parameters/Accept"
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/octet-stream": {
              "schema": {
                "type": "string",
                "contentMediaType": "application/vnd.sqlite3"
              }
            },
            "multipart/form-data": {
              "schema": {
                "type": "object",
                "required": [
                  "database"
                ],
                "properties": {
                  "database": {
                    "type": "string",
                    "contentMediaType": "application/octet-stream"
                  },
                  "wal": {
                    "type": "string",
                    "contentMediaType": "application/octet-stream"
                  },
                  "plan": {
                    "$ref": "#/components/schemas/Plan"
                  },
                  "options": {
                    "type": "object",
                    "additionalProperties": {
                      "type": [
                        "string",
                        "integer"
                      ]
                    }
                  }
                }
              }
            }
          }
        },
        "responses": {
          "200": {
            "description": "The report, whatever the outcome.",
            "headers": {
              "Preflight-Outcome": {
                "$ref": "#/components/headers/Preflight-Outcome"
              },
              "Preflight-Job-Id": {
                "$ref": "#/components/headers/Preflight-Job-Id"
              },
              "Location": {
                "description": "With keep=1: where the kept job lives.",
                "schema": {
                  "type": "string"
                }
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Report"
                }
              },
              "text/plain": {
                "schema": {
                  "type": "string"
                },
                "example": "completed: target reached in the first launch, verification passed\n"
              },
              "application/xml": {
                "schema": {
                  "type": "string",
                  "description": "JUnit XML: one testsuite for the job, one testcase per step and one for the outcome."
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "404": {
            "$ref": "#/components/responses/UnknownPlan"
          },
          "405": {
            "$ref": "#/components/responses/MethodNotAllowed"
          },
          "413": {
            "$ref": "#/components/responses/PayloadTooLarge"
          },
          "415": {
            "$ref": "#/components/responses/UnsupportedMediaType"
          },
          "500": {
            "$ref": "#/components/responses/Internal"
          },
          "503": {
            "$ref": "#/components/responses/Busy"
          }
        }
      }
    },
    "/v1/jobs/{id}": {
      "get": {
        "summary": "The report of a job run with keep=1.",
        "responses": {
          "200": {
            "description": "The report.",
            "headers": {
              "Preflight-Outcome": {
                "$ref": "#/components/headers/Preflight-Outcome"
              },
              "Preflight-Job-Id": {
                "$ref": "#/components/headers/Preflight-Job-Id"
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Report"
                }
              },
              "text/plain": {
                "schema": {
                  "type": "string"
                },
                "example": "completed: target reached in the first launch, verification passed\n"
              },
              "application/xml": {
                "schema": {
                  "type": "string",
                  "description": "JUnit XML: one testsuite for the job, one testcase per step and one for the outcome."
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "405": {
            "$ref": "#/components/responses/MethodNotAllowed"
          }
        },
        "parameters": [
          {
            "$ref": "#/components/parameters/id"
          },
          {
            "$ref": "#/components/parameters/Accept"
          }
        ],
        "security": [
          {
            "bearer": []
          }
        ]
      }
    },
    "/v1/jobs/{id}/database": {
      "get": {
        "summary": "The migrated database of a job run with keep=1, streamed from disk.",
        "responses": {
          "200": {
            "description": "The migrated database, checkpointed into one file.",
            "headers": {
              "Preflight-Outcome": {
                "$ref": "#/components/headers/Preflight-Outcome"
              },
              "Content-Disposition": {
                "schema": {
                  "type": "string"
                }
              }
            },
            "content": {
              "application/vnd.sqlite3": {
                "schema": {
                  "type": "string",
                  "contentMediaType": "application/vnd.sqlite3"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "405": {
            "$ref": "#/components/responses/MethodNotAllowed"
          }
        },
        "parameters": [
          {
            "$ref": "#/components/parameters/id"
          }
        ],
        "security": [
          {
            "bearer": []
          }
        ]
      }
    },
    "/v1/plans": {
      "get": {
        "summary": "The registered plans.",
        "responses": {
          "200": {
            "description": "Name, description and newest version of each plan.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/PlanList"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "405": {
            "$ref": "#/components/responses/MethodNotAllowed"
          }
        },
        "security": [
          {
            "bearer": []
          }
        ]
      }
    },
    "/v1/plans/{name}": {
      "get": {
        "summary": "A registered plan document, as its file holds it.",
        "responses": {
          "200": {
            "description": "The plan.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Plan"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "404": {
            "description": "No registered plan has that name. Codes: unknown_plan.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          },
          "405": {
            "$ref": "#/components/responses/MethodNotAllowed"
          }
        },
        "parameters": [
          {
            "$ref": "#/components/parameters/name"
          }
        ],
        "security": [
          {
            "bearer": []
          }
        ]
      }
    },
    "/v1/devices": {
      "get": {
        "summary": "The device profiles.",
        "responses": {
          "200": {
            "description": "Every device profile with its watchdog, free space and SQLite settings.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/DeviceList"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "405": {
            "$ref": "#/components/responses/MethodNotAllowed"
          }
        },
        "security": [
          {
            "bearer": []
          }
        ]
      }
    },
    "/healthz": {
      "get": {
        "summary": "Liveness and load; answers at once while jobs run.",
        "responses": {
          "200": {
            "description": "Serving.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Health"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "405": {
            "$ref": "#/components/responses/MethodNotAllowed"
          },
          "503": {
            "description": "Shutting down (status `draining`): stop sending jobs here.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Health"
                }
              }
            }
          }
        },
        "security": []
      }
    },
    "/metrics": {
      "get": {
        "summary": "Prometheus metrics.",
        "responses": {
          "200": {
            "description": "Text exposition format 0.0.4: preflight_http_requests_total{route,status}, preflight_jobs_total{outcome} (plus `cancelled`), preflight_job_duration_seconds (histogram), preflight_upload_bytes_total, preflight_jobs_running, preflight_jobs_queued.",
            "content": {
              "text/plain": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "405": {
            "$ref": "#/components/responses/MethodNotAllowed"
          }
        },
        "security": []
      }
    },
    "/openapi.json": {
      "get": {
        "summary": "This document.",
        "responses": {
          "200": {
            "description": "OpenAPI 3.1.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object"
                }
              }
            }
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          },
          "404": {
            "$ref": "#/components/responses/NotFound"
          },
          "405": {
            "$ref": "#/components/responses/MethodNotAllowed"
          }
        },
        "security": []
      }
    }
  },
  "components": {
    "headers": {
      "Preflight-Outcome": {
        "description": "The report's outcome.",
        "schema": {
          "$ref": "#/components/schemas/Outcome"
        }
      },
      "Preflight-Job-Id": {
        "description": "The job's id (32 hex digits).",
        "schema": {
          "type": "string",
          "pattern": "^[0-9a-f]{32}$"
        }
      }
    },
    "schemas": {
      "Error": {
        "type": "object",
        "required": [
          "error"
        ],
        "properties": {
          "error": {
            "type": "object",
            "required": [
              "code",
              "message"
            ],
            "properties": {
              "code": {
                "type": "string",
                "enum": [
                  "bad_request",
                  "invalid_option",
                  "invalid_plan",
                  "unauthorized",
                  "not_found",
                  "unknown_plan",
                  "method_not_allowed",
                  "payload_too_large",
                  "unsupported_media_type",
                  "busy",
                  "shutting_down",
                  "internal"
                ]
              },
              "message": {
                "type": "string"
              }
            }
          }
        }
      },
      "Outcome": {
        "type": "string",
        "enum": [
          "completed",
          "completed_after_kills",
          "watchdog_killed",
          "crash_loop",
          "refused",
          "disk_full",
          "failed",
          "verification_failed",
          "invalid_database"
        ]
      },
      "Report": {
        "type": "object",
        "description": "CONTRACT \u00a73, report_version 1. Every top-level field is always present, null where it does not apply.",
        "required": [
          "report_version",
          "job_id",
          "outcome",
          "failure",
          "plan",
          "options",
          "input",
          "launches",
          "steps",
          "space",
          "final",
          "warnings",
          "timings"
        ],
        "properties": {
          "report_version": {
            "type": "integer",
            "const": 1
          },
          "job_id": {
            "type": "string"
          },
          "outcome": {
            "$ref": "#/components/schemas/Outcome"
          },
          "failure": {
            "type": [
              "object",
              "null"
            ],
            "required": [
              "kind",
              "message"
            ],
            "properties": {
              "kind": {
                "type": "string"
              },
              "step": {
                "type": [
                  "integer",
                  "null"
                ]
              },
              "message": {
                "type": "string"
              },
              "statement": {
                "type": [
                  "string",
                  "null"
                ]
              },
              "sqlite_code": {
                "type": [
                  "integer",
                  "null"
                ]
              },
              "needed_bytes": {
                "type": [
                  "integer",
                  "null"
                ]
              },
              "free_bytes": {
                "type": [
                  "integer",
                  "null"
                ]
              }
            }
          },
          "plan": {
            "type": "object",
            "properties": {
              "name": {
                "type": "string"
              },
              "sha256": {
                "type": "string"
              },
              "target_version": {
                "type": "integer"
              }
            },
            "required": [
              "name",
              "sha256",
              "target_version"
            ]
          },
          "options": {
            "type": "object",
            "properties": {
              "device": {
                "type": "string"
              },
              "target": {
                "type": [
                  "integer",
                  "null"
                ]
              },
              "watchdog_ms": {
                "type": [
                  "integer",
                  "null"
                ]
              },
              "free_bytes": {
                "type": [
                  "integer",
                  "null"
                ]
              },
              "launches": {
                "type": "integer"
              },
              "space_check": {
                "type": "string",
                "enum": [
                  "estimate",
                  "off"
                ]
              },
              "verify": {
                "type": "string",
                "enum": [
                  "full",
                  "quick",
                  "off"
                ]
              }
            },
            "required": [
              "device",
              "target",
              "watchdog_ms",
              "free_bytes",
              "launches",
              "space_check",
              "verify"
            ]
          },
          "input": {
            "type": "object",
            "properties": {
              "bytes": {
                "type": "integer"
              },
              "sha256": {
                "type": "string"
              },
              "user_version": {
                "type": [
                  "integer",
                  "null"
                ]
              },
              "application_id": {
                "type": [
                  "integer",
                  "null"
                ]
              },
              "journal_mode": {
                "type": [
                  "string",
                  "null"
                ]
              },
              "page_size": {
                "type": [
                  "integer",
                  "null"
                ]
              },
              "sqlite_header_valid": {
                "type": "boolean"
              },
              "tables": {
                "type": [
                  "object",
                  "null"
                ],
                "additionalProperties": {
                  "type": "integer"
                }
              }
            },
            "required": [
              "bytes",
              "sha256",
              "user_version",
              "application_id",
              "journal_mode",
              "page_size",
              "sqlite_header_valid",
              "tables"
            ]
          },
          "launches": {
            "type": "array",
            "items": {
              "type": "object",
              "properties": {
                "launch": {
                  "type": "integer"
                },
                "from_version": {
                  "type": [
                    "integer",
                    "null"
                  ]
                },
                "reached_version": {
                  "type": [
                    "integer",
                    "null"
                  ]
                },
                "ended": {
                  "type": "string",
                  "enum": [
                    "finished",
                    "killed",
                    "failed"
                  ]
                },
                "elapsed_ms": {
                  "type": "integer"
                },
                "start_ms": {
                  "type": [
                    "integer",
                    "null"
                  ]
                }
              },
              "required": [
                "launch",
                "from_version",
                "reached_version",
                "ended",
                "elapsed_ms",
                "start_ms"
              ]
            }
          },
          "steps": {
            "type": "array",
            "items": {
              "type": "object",
              "properties": {
                "version": {
                  "type": "integer"
                },
                "name": {
                  "type": "string"
                },
                "kind": {
                  "type": "string",
                  "enum": [
                    "sql",
                    "rebuild",
                    "backfill"
                  ]
                },
                "cost_class": {
                  "type": [
                    "string",
                    "null"
                  ],
                  "enum": [
                    "metadata",
                    "index",
                    "rewrite",
                    "data",
                    null
                  ]
                },
                "status": {
                  "type": "string",
                  "enum": [
                    "applied",
                    "interrupted",
                    "failed",
                    "refused",
                    "skipped"
                  ]
                },
                "launch": {
                  "type": [
                    "integer",
                    "null"
                  ]
                },
                "elapsed_ms": {
                  "type": [
                    "integer",
                    "null"
                  ]
                },
                "swap_ms": {
                  "type": [
                    "integer",
                    "null"
                  ]
                },
                "peak_bytes": {
                  "type": [
                    "integer",
                    "null"
                  ]
                },
                "peak_growth_bytes": {
                  "type": [
                    "integer",
                    "null"
                  ]
                },
                "estimated_bytes": {
                  "type": [
                    "integer",
                    "null"
                  ]
                },
                "bytes_written": {
                  "type": [
                    "integer",
                    "null"
                  ]
                },
                "syncs": {
                  "type": [
                    "integer",
                    "null"
                  ]
                },
                "rows": {
                  "type": [
                    "integer",
                    "null"
                  ]
                },
                "batches": {
                  "type": [
                    "integer",
                    "null"
                  ]
                }
              },
              "required": [
                "version",
                "name",
                "kind",
                "status"
              ]
            }
          },
          "space": {
            "type": "object",
            "properties": {
              "initial_bytes": {
                "type": [
                  "integer",
                  "null"
                ]
              },
              "peak_bytes": {
                "type": [
                  "integer",
                  "null"
                ]
              },
              "peak_growth_bytes": {
                "type": [
                  "integer",
                  "null"
                ]
              },
              "final_bytes": {
                "type": [
                  "integer",
                  "null"
                ]
              },
              "free_bytes": {
                "type": [
                  "integer",
                  "null"
                ]
              },
              "min_free_bytes": {
                "type": [
                  "integer",
                  "null"
                ]
              },
              "by_class": {
                "type": [
                  "object",
                  "null"
                ],
                "additionalProperties": {
                  "type": "integer"
                }
              }
            },
            "required": [
              "initial_bytes",
              "peak_bytes",
              "peak_growth_bytes",
              "final_bytes",
              "free_bytes",
              "min_free_bytes",
              "by_class"
            ]
          },
          "final": {
            "type": [
              "object",
              "null"
            ],
            "properties": {
              "user_version": {
                "type": [
                  "integer",
                  "null"
                ]
              },
              "integrity": {
                "type": [
                  "string",
                  "null"
                ]
              },
              "foreign_key_violations": {
                "type": [
                  "integer",
                  "null"
                ]
              },
              "tables": {
                "type": [
                  "object",
                  "null"
                ],
                "additionalProperties": {
                  "type": "integer"
                }
              },
              "rows_lost": {
                "type": [
                  "object",
                  "null"
                ],
                "additionalProperties": {
                  "type": "integer"
                }
              },
              "schema_matches_fresh_install": {
                "type": [
                  "boolean",
                  "null"
                ]
              },
              "schema_diff": {
                "type": [
                  "array",
                  "null"
                ],
                "items": {
                  "type": "string"
                }
              }
            },
            "required": [
              "user_version",
              "integrity",
              "foreign_key_violations",
              "tables",
              "rows_lost",
              "schema_matches_fresh_install",
              "schema_diff"
            ]
          },
          "warnings": {
            "type": "array",
            "items": {
              "type": "object",
              "properties": {
                "code": {
                  "type": "string"
                },
                "step": {
                  "type": [
                    "integer",
                    "null"
                  ]
                },
                "message": {
                  "type": "string"
                }
              },
              "required": [
                "code",
                "step",
                "message"
              ]
            }
          },
          "timings": {
            "type": "object",
            "properties": {
              "total_ms": {
                "type": "integer"
              },
              "upload_ms": {
                "type": [
                  "integer",
                  "null"
                ]
              }
            },
            "required": [
              "total_ms",
              "upload_ms"
            ]
          }
        }
      },
      "PlanList": {
        "type": "object",
        "required": [
          "plans"
        ],
        "properties": {
          "plans": {
            "type": "array",
            "items": {
              "type": "object",
              "properties": {
                "name": {
                  "type": "string"
                },
                "description": {
                  "type": [
                    "string",
                    "null"
                  ]
                },
                "newest_version": {
                  "type": "integer"
                },
                "steps": {
                  "type": "integer"
                },
                "sha256": {
                  "type": "string"
                }
              },
              "required": [
                "name",
                "description",
                "newest_version",
                "steps",
                "sha256"
              ]
            }
          }
        }
      },
      "DeviceList": {
        "type": "object",
        "required": [
          "devices"
        ],
        "properties": {
          "devices": {
            "type": "array",
            "items": {
              "type": "object",
              "properties": {
                "name": {
                  "type": "string"
                },
                "description": {
                  "type": "string"
                },
                "watchdog_ms": {
                  "type": [
                    "integer",
                    "null"
                  ]
                },
                "free_bytes": {
                  "type": [
                    "integer",
                    "null"
                  ]
                },
                "launches": {
                  "type": "integer"
                },
                "min_sqlite_version": {
                  "type": [
                    "string",
                    "null"
                  ]
                },
                "connection": {
                  "type": "object",
                  "properties": {
                    "secure_delete": {
                      "type": [
                        "boolean",
                        "null"
                      ]
                    },
                    "journal_mode": {
                      "type": [
                        "string",
                        "null"
                      ]
                    },
                    "synchronous": {
                      "type": [
                        "string",
                        "null"
                      ]
                    }
                  },
                  "required": [
                    "secure_delete",
                    "journal_mode",
                    "synchronous"
                  ]
                }
              },
              "required": [
                "name",
                "description",
                "watchdog_ms",
                "free_bytes",
                "launches",
                "min_sqlite_version",
                "connection"
              ]
            }
          }
        }
      },
      "Health": {
        "type": "object",
        "required": [
          "status",
          "jobs"
        ],
        "properties": {
          "status": {
            "type": "string",
            "enum": [
              "ok",
              "draining"
            ]
          },
          "jobs": {
            "type": "object",
            "properties": {
              "running": {
                "type": "integer"
              },
              "queued": {
                "type": "integer"
              },
              "uploading": {
                "type": "integer"
              },
              "kept": {
                "type": "integer"
              }
            },
            "required": [
              "running",
              "queued",
              "uploading",
              "kept"
            ]
          }
        }
      },
      "Plan": {
        "type": "object",
        "description": "A migration plan document (CONTRACT \u00a71), as registered.",
        "required": [
          "name",
          "steps"
        ],
        "properties": {
          "name": {
            "type": "string"
          },
          "description": {
            "type": "string"
          },
          "application_id": {
            "type": "integer"
          },
          "foreign_keys": {
            "type": "string",
            "enum": [
              "on",
              "off"
            ]
          },
          "steps": {
            "type": "array",
            "items": {
              "type": "object"
            }
          },
          "fresh_install": {
            "type": "object"
          }
        }
      }
    },
    "responses": {
      "BadRequest": {
        "description": "The request cannot be used: a bad parameter, option or plan, a body where none is taken, a multipart body without a database part. Codes: bad_request, invalid_option, invalid_plan.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "Unauthorized": {
        "description": "Tokens are configured and the request has no valid `Authorization: Bearer <token>`. Codes: unauthorized.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        },
        "headers": {
          "WWW-Authenticate": {
            "schema": {
              "type": "string"
            }
          }
        }
      },
      "NotFound": {
        "description": "Nothing there: an unknown path, a job that was not kept or has expired. Codes: not_found.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "UnknownPlan": {
        "description": "No registered plan has that name. Codes: unknown_plan.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "MethodNotAllowed": {
        "description": "The route exists but not for this method. Codes: method_not_allowed.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        },
        "headers": {
          "Allow": {
            "schema": {
              "type": "string"
            }
          }
        }
      },
      "PayloadTooLarge": {
        "description": "The upload is larger than `max_upload_bytes`: answered right after the headers when Content-Length says so, otherwise as soon as the limit is crossed (the connection then closes). Codes: payload_too_large.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "UnsupportedMediaType": {
        "description": "The body's Content-Type cannot be a database: application/json, */*+json, text/*, application/xml, */*+xml, or multipart/* other than multipart/form-data. Codes: unsupported_media_type.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      },
      "Busy": {
        "description": "Every job slot and queue place is taken, or the server is shutting down. Codes: busy, shutting_down.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        },
        "headers": {
          "Retry-After": {
            "description": "Seconds to wait before retrying.",
            "schema": {
              "type": "integer"
            }
          }
        }
      },
      "Internal": {
        "description": "The server could not do its part (e.g. the job directory could not be written). Codes: internal.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Error"
            }
          }
        }
      }
    },
    "parameters": {
      "plan": {
        "name": "plan",
        "in": "query",
        "required": false,
        "description": "A registered plan's name (GET /v1/plans). Required for a raw body; for multipart, either this or a `plan` part.",
        "schema": {
          "type": "string"
        }
      },
      "keep": {
        "name": "keep",
        "in": "query",
        "required": false,
        "description": "`1` keeps the job (report and migrated database) for `keep_seconds` at /v1/jobs/{id}.",
        "schema": {
          "type": "string",
          "enum": [
            "0",
            "1",
            "true",
            "false",
            "yes",
            "no"
          ]
        }
      },
      "Accept": {
        "name": "Accept",
        "in": "header",
        "required": false,
        "description": "`text/plain` for a short summary, `application/xml` for JUnit XML, anything else for JSON.",
        "schema": {
          "type": "string"
        }
      },
      "id": {
        "name": "id",
        "in": "path",
        "required": true,
        "description": "A job id from a keep=1 run.",
        "schema": {
          "type": "string",
          "pattern": "^[0-9a-f]{32}$"
        }
      },
      "name": {
        "name": "name",
        "in": "path",
        "required": true,
        "description": "A registered plan's name.",
        "schema": {
          "type": "string"
        }
      },
      "target": {
        "name": "target",
        "in": "query",
        "required": false,
        "description": "Version to migrate to; default the plan's newest.",
        "schema": {
          "type": "integer"
        }
      },
      "device": {
        "name": "device",
        "in": "query",
        "required": false,
        "description": "A device profile (GET /v1/devices) that sets the defaults below; default `default`.",
        "schema": {
          "type": "string"
        }
      },
      "watchdog_ms": {
        "name": "watchdog_ms",
        "in": "query",
        "required": false,
        "description": "Wall-clock budget of one launch in ms, or `unlimited`; default from the device profile.",
        "schema": {
          "type": "string"
        }
      },
      "free_bytes": {
        "name": "free_bytes",
        "in": "query",
        "required": false,
        "description": "Simulated free disk space: bytes, `50MB`, `50MiB`, or `unlimited` (default).",
        "schema": {
          "type": "string"
        }
      },
      "launches": {
        "name": "launches",
        "in": "query",
        "required": false,
        "description": "Launches to simulate (1-100); default 5.",
        "schema": {
          "type": "integer"
        }
      },
      "space_check": {
        "name": "space_check",
        "in": "query",
        "required": false,
        "description": "`estimate` (default) or `off`.",
        "schema": {
          "type": "string",
          "enum": [
            "estimate",
            "off"
          ]
        }
      },
      "verify": {
        "name": "verify",
        "in": "query",
        "required": false,
        "description": "`full` (default), `quick` or `off`.",
        "schema": {
          "type": "string",
          "enum": [
            "full",
            "quick",
            "off"
          ]
        }
      }
    },
    "securitySchemes": {
      "bearer": {
        "type": "http",
        "scheme": "bearer"
      }
    }
  }
}
"""#
}
