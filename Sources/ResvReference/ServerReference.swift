/// The reference text of `resv-server`'s man page.
extension Reference {
    public static let serverManual = Manual(
        environment: [
            Item(
                name: "RESV_SERVER_<KEY>",
                text: """
                    Any key of the configuration file, in capitals with - as _ (RESV_SERVER_DATABASE, \
                    RESV_SERVER_PORT, RESV_SERVER_TLS_CERT, RESV_SERVER_NO_METRICS=true and the others): wins over the file, \
                    an option given wins over it. A value that cannot be used is one line naming the variable, exit 78.
                    """),
            Item(
                name: "RESV_SERVER_CONFIG",
                text: "The configuration file, when --config is not given (empty: none, not even the default)."),
            Item(
                name: "TMPDIR",
                text: "Where SQLite keeps temporary files for large sorts (default /tmp)."),
        ],
        files: [
            Item(
                name: "/etc/resv-server/config.json",
                text: """
                    The configuration file read when no other is named and it exists (the resv-server package's): \
                    a JSON object whose keys are the long options of serve without their dashes (database, host, \
                    port, log-level, landmarks, request-timeout, idle-timeout, rate-limit, max-holds-per-user, \
                    no-metrics, tls-cert, tls-key, state-directory, token-recheck), each of the option's type; the \
                    token commands read only database, the user commands database and landmarks. Not JSON, not an \
                    object, an unknown key, a value of the wrong \
                    type, a port outside 1-65535 or a database URL that does not parse: one line naming the file and \
                    the key, exit 78, nothing started.
                    """),
            Item(
                name: "/var/lib/resv-server",
                text: """
                    The package's state directory (state-directory in its configuration): the SQLite database, \
                    the resv user's alone (0700); kept when the package is purged.
                    """),
            Item(
                name: "PATH.sqlite",
                text: """
                    The SQLite database named by --database, with its PATH.sqlite-wal and PATH.sqlite-shm \
                    companions while a server runs (WAL mode). Back up all three, or stop the server first.
                    """),
            Item(
                name: "openapi/resv-server.yaml",
                text: "In the source repository: the OpenAPI 3 document of every route, tested against the server."),
        ],
        exitCodes: [
            ExitCode(
                code: ExitStatus.success, summary: "success",
                detail: "a token was created, or the server stopped on SIGINT or SIGTERM"),
            ExitCode(
                code: ExitStatus.usage, summary: "usage",
                detail:
                    "an unknown option, a blank user name or one with control characters, a port outside 0-65535, --tls-cert without --tls-key (or the reverse)"
            ),
            ExitCode(
                code: ExitStatus.dataError, summary: "data error",
                detail: "the --landmarks file is not valid JSON or one of its landmarks does not map"),
            ExitCode(
                code: ExitStatus.unavailable, summary: "unavailable",
                detail:
                    "the database cannot be opened, reached or migrated, the port cannot be bound, or the --landmarks file cannot be read"
            ),
            ExitCode(
                code: ExitStatus.noInput, summary: "no input",
                detail: "the --tls-cert or --tls-key file or the --config file named is missing or cannot be read"),
            ExitCode(
                code: ExitStatus.cannotWrite, summary: "state directory",
                detail: "the --state-directory is missing, not a folder, another user's, or writable by others"),
            ExitCode(
                code: ExitStatus.configuration, summary: "configuration",
                detail: """
                    the --tls-cert or --tls-key file is not PEM, or the key is not the certificate's; the \
                    configuration file or a RESV_SERVER_<KEY> variable cannot be used (not JSON, an unknown key, \
                    a wrong type, a value out of range)
                    """),
        ],
        examples: [
            Item(
                name: "A token for a user, then the server on the default SQLite file:",
                text: """
                    resv-server token create ada --database reservations.sqlite
                    resv-server serve --database reservations.sqlite --port 8080
                    """),
            Item(
                name: "PostgreSQL, listening on every interface:",
                text: """
                    resv-server serve --database postgres://resv:secret@db.example.com/resv --host 0.0.0.0
                    """),
            Item(
                name: "Reserving, listing and cancelling with curl:",
                text: """
                    curl -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\
                      -d '{"landmarkId":"7c6984ff-188e-417e-b476-ec5f30b8d745","date":"2031-06-01T10:00:00Z","partySize":2}' \\
                      http://127.0.0.1:8080/reservations
                    curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:8080/reservations
                    curl -X DELETE -H "Authorization: Bearer $TOKEN" http://127.0.0.1:8080/reservations/ID
                    """),
            Item(
                name: "HTTPS, reloading the certificate and key on SIGHUP (after a renewal):",
                text: """
                    resv-server serve --database reservations.sqlite --tls-cert cert.pem --tls-key key.pem
                    kill -HUP $(pidof resv-server)
                    """),
            Item(
                name: "A read-only token, a token for a calendar program, and revoking one token by its id:",
                text: """
                    resv-server token create ada --scope read --database reservations.sqlite
                    resv-server token create ada --scope calendar --expires-in 365d --database reservations.sqlite
                    resv-server token list --database reservations.sqlite
                    resv-server token revoke ada --id 1a2b3c4d --database reservations.sqlite
                    """),
        ]
    )
}
