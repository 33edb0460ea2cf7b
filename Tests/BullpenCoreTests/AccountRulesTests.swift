import BullpenCore
import Testing

@Suite("Account rules")
struct AccountRulesTests {
    @Test func usernamesFoldToALowerCaseKey() throws {
        #expect(try AccountRules.usernameKey("Alice_99") == "alice_99")
    }

    @Test(arguments: ["ab", String(repeating: "a", count: 33), "_alice", "al ice", "alicé", ""])
    func badUsernamesAreRefused(name: String) {
        #expect(throws: CredentialProblem.usernameInvalid) { try AccountRules.usernameKey(name) }
    }

    @Test func shortLongCommonAndSelfNamedPasswordsAreRefused() {
        #expect(throws: CredentialProblem.passwordTooShort(minimum: 8)) { try AccountRules.validatePassword("short", username: "bob") }
        #expect(throws: CredentialProblem.passwordTooLong(maximum: 128)) {
            try AccountRules.validatePassword(String(repeating: "x", count: 129) + "y", username: "bob")
        }
        #expect(throws: CredentialProblem.passwordTooCommon) { try AccountRules.validatePassword("Password123", username: "bob") }
        #expect(throws: CredentialProblem.passwordTooCommon) { try AccountRules.validatePassword("zzzzzzzzzz", username: "bob") }
        #expect(throws: CredentialProblem.passwordContainsUsername) { try AccountRules.validatePassword("my-bobcat-rules", username: "Bobcat") }
    }

    @Test func longPassphrasesAreFine() throws {
        try AccountRules.validatePassword("correct horse battery staple", username: "alice")
        try AccountRules.validatePassword(String(repeating: "ab", count: 64), username: "alice")
    }
}
