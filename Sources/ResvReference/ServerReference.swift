/// The reference text of `resv-server`'s man page.
extension Reference {
    public static let serverManual = Manual(
        environment: [
            Item(
                name: "TMPDIR",
                text: "Where SQLite keeps temporary files for large sorts (default /tmp).")
        ],
        files: [
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
                detail: "the --tls-cert or --tls-key file is missing or cannot be read"),
            ExitCode(
                code: ExitStatus.configuration, summary: "configuration",
                detail: "the --tls-cert or --tls-key file is not PEM, or the key is not the certificate's"),
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
