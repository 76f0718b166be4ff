/// The texts `observatory --help`, `observatory help COMMAND`, `observatory COMMAND --help`
/// and `observatory --version` print.
public enum CommandLineHelp {
    /// The version `--version` prints; the same release as the daemon's (`observatoryd --version`).
    public static let version = "observatory 0.1.0"

    /// The usage text for every command, printed by `--help` and `help`.
    public static let usage = """
        usage: observatory [options] COMMAND

        commands:
          get KEY             print the value of KEY as JSON
          set KEY VALUE       set KEY to VALUE (JSON; a plain word is a string);
                              VALUE - reads standard input, @PATH a file
          delete KEY          delete KEY
          list [PATTERN]      list the keys under PATTERN (sky.* or sky.), with their versions
          watch PATTERN       print every change of a KEY, or of every key under PREFIX*,
                              as `key old → new by author (vN)`, until interrupted
          history PATTERN     print the held changes of a KEY, or of the keys under PREFIX. or
                              PREFIX*, one a line with its local time and author
          batch [FILE]        apply the operations in FILE (JSON; default standard input)
                              all or nothing, at one revision
          ping                print the server, its last revision and its epoch (a health check)
          help [COMMAND]      print this text, or what COMMAND does and takes

        options:
          --host HOST         server host (default 127.0.0.1, or OBSERVATORY_HOST); several as
                              a:7070,b:7070 are tried in turn (or OBSERVATORY_SERVERS)
          --port PORT         server port (default 7070, or OBSERVATORY_PORT)
          --token TOKEN       authentication token
          --name NAME         author name for changes (default observatory-cli)
          --json              print the server's frames as JSON
          --help, -h          print this text (after a command: that command's help)
          --version           print the version

        exit codes: 0 ok, 1 not found, conflict or refused, 2 usage, 3 connection
        """

    /// What each command does and takes, for `help COMMAND` and `COMMAND --help`.
    public static func usage(of command: String) -> String? {
        switch command {
        case "get":
            """
            usage: observatory get KEY

            Prints the value of KEY as compact JSON. Exit 1 when KEY does not exist.
            """
        case "set":
            """
            usage: observatory set KEY VALUE [--string] [--ephemeral] [--ttl SECONDS]

            Sets KEY to VALUE and prints `KEY = VALUE (vN)`, the value shortened when long,
            or `KEY unchanged (vN)`.

            VALUE is JSON: 42, true, null, '"quoted"', '{"on":true}'. A plain word that is
            not JSON is a string (red, hello world). Text that looks like JSON with a typo
            is refused with a hint: tru, nul, True, 01, 1e999, 1.2.3.
              -             read VALUE (JSON) from standard input
              @PATH         read VALUE (JSON) from the file PATH; for large values
              --string      take VALUE (or what - or @PATH reads) as a string, as is
              --ephemeral   keep KEY only while the command runs (until Ctrl-C)
              --ttl SECONDS the server deletes KEY SECONDS after this write (1 to 31536000);
                            setting it again with --ttl restarts the clock
            The strings - and @x themselves are set as JSON: '"-"', '"@x"'.
            """
        case "delete":
            """
            usage: observatory delete KEY

            Deletes KEY and prints `KEY deleted (vN)`. Exit 1 when KEY does not exist.
            """
        case "list":
            """
            usage: observatory list [PATTERN]

            Prints `KEY (vN)` for every key under PATTERN, in byte order: sky.* and sky.
            both list the keys that start with sky.; no PATTERN lists every key.
            A * anywhere but at the end is an error.
            """
        case "watch":
            """
            usage: observatory watch PATTERN [--from REV] [--slow close|coalesce]

            Prints every change as `key old → new by author (vN)` until Ctrl-C. PATTERN is
            a KEY, or PREFIX* for every key that starts with PREFIX (sky.*), or * for all.
            A * anywhere but at the end is an error.
              --from REV    first the changes after revision REV, if the server still holds them
              --slow close  never skip a change: if the watch falls behind, the server closes
                            and watch resumes by itself (default coalesce: skip to the latest)
            """
        case "history":
            """
            usage: observatory history PATTERN [--author NAME] [--limit N] [--newest-first]

            Prints the changes the server still holds of a KEY, or of every key under a
            prefix (sky. or sky.*), oldest first, one a line:
              2026-11-28 06:12:03.123 sky.color "blue" → "red" by alice (v12)
            with the time the server made it, in local time, and the author it stamped.
              --author NAME     only the changes made under the author name NAME
              --limit N         at most N changes (1 to 1000; default 100)
              --newest-first    the most recent changes first
            """
        case "batch":
            """
            usage: observatory batch [- | @PATH | PATH]

            Applies several operations all or nothing, at one revision, and prints
            `revision N`, then one line per operation: `set KEY (vN)`, `set KEY unchanged (vN)`,
            `delete KEY (vN)` or `check KEY (vN)`. The operations are JSON, read from standard
            input (no argument, or -) or from the file PATH (@PATH or PATH): an array, or an
            object whose "ops" is the array, each as in the protocol:
              [{"op":"check","key":"lock.printer","ifVersion":41},
               {"op":"set","key":"job.7.state","value":"printing","ttl":60},
               {"op":"delete","key":"queue.7","ifVersion":40}]
            A set takes value and optionally ifVersion, ephemeral and ttl; a delete, ifVersion;
            a check needs ifVersion. When one fails, nothing is applied: the error names its
            index and key, and the exit code is 1.
            """
        case "ping":
            """
            usage: observatory ping

            Prints the server, its last revision and its epoch. Exit 0, or 3 when the
            server cannot be reached: a health check.
            """
        case "help":
            """
            usage: observatory help [COMMAND]

            Prints the usage of every command, or of COMMAND.
            """
        default:
            nil
        }
    }
}
