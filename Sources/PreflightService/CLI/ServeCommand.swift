/// `preflight serve [--config FILE]`: the HTTP service (`Server`).
enum ServeCommand {
    static let syntax = CommandSyntax(
        command: "preflight serve", flags: [.init("config", value: "FILE")],
        usage: """
            usage: preflight serve [--config FILE]

            Starts the HTTP service. The configuration is the embedded default
            (Config/preflight.json), then FILE over it, then PREFLIGHT_* variables over both
            (PREFLIGHT_PORT=9000, PREFLIGHT_TOKENS=a,b, PREFLIGHT_LOG_LEVEL=debug).
            Stops cleanly on SIGTERM or Ctrl-C.

              --config FILE   a configuration document; its keys override the default's
            """)

    static func main(_ arguments: [String], workerExecutable: String) -> Int32 {
        CommandLineAnswer.run(syntax, arguments) { parsed in
            Server.serve(configPath: parsed.value("config"), workerExecutable: workerExecutable)
        }
    }
}
