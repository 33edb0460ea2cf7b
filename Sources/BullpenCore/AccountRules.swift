import Foundation

/// Why a username or password was refused; each has a stable wire code.
public enum CredentialProblem: Error, Sendable, Hashable {
    case usernameInvalid
    case passwordTooShort(minimum: Int)
    case passwordTooLong(maximum: Int)
    case passwordTooCommon
    case passwordContainsUsername

    public var code: String {
        switch self {
        case .usernameInvalid: "invalid_username"
        case .passwordTooShort, .passwordTooLong, .passwordTooCommon, .passwordContainsUsername: "weak_password"
        }
    }

    public var message: String {
        switch self {
        case .usernameInvalid:
            "Usernames are 3 to 32 characters: letters, digits, '_', '-' and '.', starting with a letter or digit."
        case .passwordTooShort(let minimum):
            "Passwords need at least \(minimum) characters."
        case .passwordTooLong(let maximum):
            "Passwords may have at most \(maximum) characters."
        case .passwordTooCommon:
            "That password is one of the most common ones; choose another."
        case .passwordContainsUsername:
            "The password must not contain the username."
        }
    }
}

/// The rules for usernames and passwords.
public enum AccountRules {
    public static let usernameLength = 3...32
    public static let passwordLength = 8...128

    /// Validates a username and returns its case-insensitive key (`"Alice"` → `"alice"`), which is unique.
    public static func usernameKey(_ username: String) throws(CredentialProblem) -> String {
        let scalars = username.unicodeScalars
        func allowed(_ s: Unicode.Scalar) -> Bool {
            ("a"..."z").contains(s) || ("A"..."Z").contains(s) || ("0"..."9").contains(s)
        }
        guard usernameLength.contains(scalars.count), let first = scalars.first, allowed(first),
              scalars.allSatisfy({ allowed($0) || $0 == "_" || $0 == "-" || $0 == "." })
        else { throw .usernameInvalid }
        return username.lowercased()
    }

    /// Checks a new password. Length counts code points, not bytes; nothing is truncated (the
    /// hasher pre-hashes, so bytes past bcrypt's 72 still count).
    public static func validatePassword(_ password: String, username: String) throws(CredentialProblem) {
        let count = password.unicodeScalars.count   // code points, as the contract's lengths count
        guard count >= passwordLength.lowerBound else { throw .passwordTooShort(minimum: passwordLength.lowerBound) }
        guard count <= passwordLength.upperBound else { throw .passwordTooLong(maximum: passwordLength.upperBound) }
        let folded = password.lowercased()
        if commonPasswords.contains(folded) || Set(folded).count == 1 { throw .passwordTooCommon }
        if folded.contains(username.lowercased()) { throw .passwordContainsUsername }
    }

    /// The most common passwords of eight or more characters (from public breach-frequency
    /// lists), compared case-insensitively.
    static let commonPasswords: Set<String> = [
        "password", "12345678", "123456789", "1234567890", "12345678910", "qwertyuiop", "password1",
        "password12", "password123", "password1234", "passw0rd", "p@ssw0rd", "p@ssword", "pa$$word",
        "iloveyou", "iloveyou1", "11111111", "111111111", "00000000", "88888888", "66666666", "12341234",
        "123123123", "987654321", "1qaz2wsx", "zaq12wsx", "zaq1zaq1", "1q2w3e4r", "1q2w3e4r5t", "q1w2e3r4",
        "q1w2e3r4t5", "qwerty123", "qwerty12", "qwerty1234", "qwer1234", "1234qwer", "asdf1234",
        "asdfghjk", "asdfghjkl", "qwertyui", "zxcvbnm1", "zxcvbnm123", "abcd1234", "abc12345",
        "abcdefgh", "aaaaaaaa", "sunshine", "princess", "football", "football1", "baseball",
        "basketball", "welcome1", "welcome123", "superman", "starwars", "trustno1", "letmein1",
        "letmein123", "michelle", "jennifer", "computer", "whatever", "corvette", "mercedes",
        "samantha", "maverick", "internet", "changeme", "changeme1", "admin123", "administrator",
        "charlie1", "monkey123", "dragon123", "michael1", "jordan23", "liverpool", "chelsea1",
        "arsenal1", "blink182", "secret123", "master123", "shadow12", "killer123", "matrix123",
        "princess1", "sunshine1", "superman1", "baseball1", "dolphins", "mustang1", "jessica1",
        "ashley12", "bailey12", "passport", "hello123", "hello1234", "freedom1", "whatever1",
        "trustme1", "lovely12", "babygirl", "babygirl1", "butterfly", "chocolate", "elizabeth",
        "christina", "alexander", "victoria", "midnight", "thunder1", "startrek", "thomas12",
        "richard1", "jackson1", "anthony1", "danielle", "nicholas", "benjamin", "cheyenne",
        "guitar12", "hunter12", "ranger12", "soccer12", "tigger12", "pokemon1", "nintendo",
        "playstation", "minecraft", "fuckyou1", "asshole1", "lakers24", "yankees1", "cowboys1",
        "stockmarket", "investing", "investor", "bullpen1", "bullpen123", "trading1", "money123",
        "moneymoney", "millionaire", "qazwsxedc", "1qazxsw2", "123qweasd", "qweasdzxc", "zxcvbnmasdf",
        "google123", "facebook", "linkedin", "11223344", "12121212", "13131313", "123454321",
        "147258369", "159753456", "741852963", "31415926", "a1b2c3d4", "1a2b3c4d",
    ]
}
