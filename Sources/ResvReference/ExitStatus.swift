/// The exit codes of docs/contracts.md. `ResvCLI` maps every error to one of them.
public enum ExitStatus {
    public static let success: Int32 = 0
    /// Refused: unknown or ambiguous id, no capacity, a forbidden transition.
    public static let refused: Int32 = 1
    /// Usage or invalid input: bad date, party size, unknown landmark (EX_USAGE).
    public static let usage: Int32 = 64
    /// Bad data: a corrupt store, an invalid server response (EX_DATAERR).
    public static let dataError: Int32 = 65
    /// The backend is unavailable (EX_UNAVAILABLE).
    public static let unavailable: Int32 = 69
    /// An input file cannot be read: resv-server's TLS certificate or key (EX_NOINPUT).
    public static let noInput: Int32 = 66
    /// An error resv does not expect: a bug (EX_SOFTWARE).
    public static let internalError: Int32 = 70
    /// The store cannot be written (EX_CANTCREAT).
    public static let cannotWrite: Int32 = 73
    /// The output cannot be written: a full disk behind stdout (EX_IOERR).
    public static let cannotWriteOutput: Int32 = 74
    /// Temporary failure: lock timeout, rate limit; retry later (EX_TEMPFAIL).
    public static let temporary: Int32 = 75
    /// Not authorised (EX_NOPERM).
    public static let notAuthorised: Int32 = 77
    /// A configuration that cannot work: a TLS file that is not PEM, a key not the certificate's (EX_CONFIG).
    public static let configuration: Int32 = 78
    /// Interrupted by Ctrl-C (128 + SIGINT, as shells report it).
    public static let interrupted: Int32 = 130
}
