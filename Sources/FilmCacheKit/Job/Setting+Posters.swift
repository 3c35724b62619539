/// Posters: their store, pace and limits.
extension Setting where Value == String {
    /// The directory posters are stored in.
    public static let posterStore = Setting(
        .posterStore, .path, default: nil,
        meaning: "the poster store directory: `filmcache posters` fills it, and `warm` then also fetches the"
            + " posters of the films it fetched", flag: "`--store` (posters), `--posters` (warm)")
}

extension Setting where Value == Double {
    /// Poster requests per second; 0 for no limit.
    public static let posterRate = Setting(
        .posterRate, .number, default: 10,
        range: SettingRange(0.001...10_000, unit: " requests a second", alsoAllowed: 0),
        help: "Poster requests per second (not metered by OMDb's quota); 0 for no limit.",
        meaning: "poster requests a second (image hosts are not metered by OMDb's quota); 0 for no limit")

    /// Days after which a stored poster is revalidated.
    public static let posterRevalidateDays = days(
        .posterRevalidateDays, 30, help: "Days after which a stored poster is revalidated (a 304 costs no bytes).",
        meaning: "days after which a stored poster is revalidated (`If-None-Match`, `If-Modified-Since`: an"
            + " unchanged poster costs a 304 and no bytes)")

    /// Days before a poster that is gone is asked for again.
    public static let posterGoneRetryDays = days(
        .posterGoneRetryDays, 30, help: "Days before a poster that is gone (404) is asked for again.",
        meaning: "days before a poster that is gone (404, 410) is asked for again")
}

extension Setting where Value == Int {
    /// Poster transfers at once.
    public static let posterMaxInFlight = Setting(
        .posterMaxInFlight, .integer, default: 8, range: SettingRange(1...256), help: "Poster transfers at once.",
        meaning: "poster transfers at once")

    /// The largest poster accepted, in bytes.
    public static let posterMaxBytes = Setting(
        .posterMaxBytes, .integer, default: 5 << 20, range: SettingRange(1_024...104_857_600, unit: " bytes"),
        help: "The largest poster accepted, in bytes.",
        meaning: "the largest poster accepted; a larger one is refused and tried again later")
}

extension Setting where Value == [String] {
    /// Poster hosts that may be on internal addresses.
    public static let posterAllowHosts = Setting(
        .posterAllowHosts, .hosts, default: nil,
        help: "A poster host (as its URLs spell it) that may be on a loopback, private or link-local address,"
            + " such as a LAN image server; repeat for more. Replaces the job file's poster_allow_hosts."
            + " Every other poster host must resolve to public addresses, redirects included.",
        meaning: "poster hosts that may be on loopback, private, link-local or other non-public addresses (a LAN"
            + " image server); by the name the poster URL spells, so a redirect from one to another host on such an"
            + " address is still refused",
        type: "array of host names or IP addresses (a single string is a list of one), without scheme, port or path",
        flag: "`--poster-allow-host` (repeatable; the flags replace the job file's list)")
}
