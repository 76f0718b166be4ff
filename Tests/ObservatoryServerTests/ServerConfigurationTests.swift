import Foundation
import Testing

@testable import ObservatoryServer

@Suite struct ServerConfigurationTests {
    private func decode(_ text: String) throws -> ServerConfiguration {
        try ServerConfiguration.decode(Data(text.utf8), path: "test.json")
    }

    private func expectError(_ expected: ConfigurationError, in text: String) {
        #expect(throws: expected) { try decode(text).validate() }
    }

    @Test func defaultsServeLoopbackPort7070StoringEverySecondInData() {
        let configuration = ServerConfiguration()
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 7070)
        #expect(configuration.fsync == .everysec)
        #expect(configuration.dataDirectory == "data")
        #expect(configuration.compactionLogBytes == 64 << 20)
        #expect(configuration.logLevel == .info)
        #expect(configuration.limits.maxFrameBytes == 1_048_576)
        #expect(configuration.limits.maxValueBytes == 524_288)
        #expect(configuration.limits.maxQueuedBytes == 8_388_608)
        #expect(!configuration.requiresAuthentication)
    }

    @Test func shippedConfigFileEqualsTheDefaults() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let url = root.appendingPathComponent("Config/observatory.json")
        var configuration = try ServerConfiguration.decode(Data(contentsOf: url), path: url.path)
        // It lists the cluster settings with their defaults and no etcd member: cluster mode off.
        #expect(configuration.cluster == ClusterConfiguration())
        configuration.cluster = nil
        #expect(configuration == ServerConfiguration())
    }

    @Test func emptyObjectKeepsEveryDefault() throws {
        #expect(try decode("{}") == ServerConfiguration())
    }

    @Test func fileValuesReplaceDefaults() throws {
        let configuration = try decode(
            """
            {"host":"0.0.0.0","port":9000,"fsync":"always","logLevel":"debug",
             "limits":{"maxKeys":10},"auth":{"tokens":[{"token":"t1","author":"alice","write":["a.*"]}]}}
            """)
        #expect(configuration.host == "0.0.0.0")
        #expect(configuration.port == 9000)
        #expect(configuration.fsync == .always)
        #expect(configuration.logLevel == .debug)
        #expect(configuration.limits.maxKeys == 10)
        #expect(configuration.limits.maxFrameBytes == 1_048_576)
        #expect(configuration.auth.tokens == [AccessToken(token: "t1", author: "alice", read: [], write: ["a.*"])])
    }

    @Test func unknownTopLevelSettingIsNamed() {
        expectError(.unknownSetting("prot"), in: #"{"prot":1}"#)
    }

    @Test func unknownNestedSettingIsNamedWithItsPath() {
        expectError(.unknownSetting("limits.maxKey"), in: #"{"limits":{"maxKey":1}}"#)
    }

    @Test func unknownTokenFieldIsNamedWithItsIndex() {
        expectError(
            .unknownSetting("auth.tokens[0].name"), in: #"{"auth":{"tokens":[{"token":"a","author":"b","name":"c"}]}}"#)
    }

    @Test func portAsStringIsWrongType() {
        expectError(.wrongType(setting: "port", expected: "an integer"), in: #"{"port":"7070"}"#)
    }

    @Test func portAsBoolIsWrongType() {
        expectError(.wrongType(setting: "port", expected: "an integer"), in: #"{"port":true}"#)
    }

    @Test func fractionalLimitIsWrongType() {
        expectError(
            .wrongType(setting: "limits.maxKeys", expected: "an integer"), in: #"{"limits":{"maxKeys":1.5}}"#)
    }

    @Test func nullSettingIsWrongType() {
        expectError(.wrongType(setting: "host", expected: "a string"), in: #"{"host":null}"#)
    }

    @Test func portOutOfRangeIsNamed() {
        expectError(.outOfRange(setting: "port", value: "70000", allowed: "0...65535"), in: #"{"port":70000}"#)
        expectError(.outOfRange(setting: "port", value: "-1", allowed: "0...65535"), in: #"{"port":-1}"#)
    }

    @Test func valueLimitAboveFrameLimitIsRejected() {
        expectError(
            .outOfRange(setting: "limits.maxValueBytes", value: "2000", allowed: "1...1000"),
            in: #"{"limits":{"maxFrameBytes":1000,"maxValueBytes":2000}}"#)
    }

    @Test func unknownFsyncPolicyListsTheAllowedOnes() {
        expectError(
            .invalidValue(setting: "fsync", value: "sometimes", allowed: "always, everysec, none"),
            in: #"{"fsync":"sometimes"}"#)
    }

    @Test func duplicateTokenIsRejected() {
        expectError(
            .invalidValue(setting: "auth.tokens[1].token", value: "(hidden)", allowed: "a token not listed before"),
            in: #"{"auth":{"tokens":[{"token":"a","author":"x"},{"token":"a","author":"y"}]}}"#)
    }

    @Test func tokenWithoutAuthorIsRejected() {
        expectError(
            .wrongType(setting: "auth.tokens[0].author", expected: "a non-empty string"),
            in: #"{"auth":{"tokens":[{"token":"a"}]}}"#)
    }

    @Test func topLevelArrayIsWrongType() {
        expectError(.wrongType(setting: "(top level)", expected: "an object"), in: "[]")
    }

    @Test func malformedJSONNamesTheFile() {
        #expect {
            try decode("{\"port\":")
        } throws: { error in
            guard case .malformedFile(let path, _) = error as? ConfigurationError else { return false }
            return path == "test.json"
        }
    }

    @Test func theOldTopLevelTokensSayHowToWriteThemNow() {
        #expect {
            try decode(#"{"tokens":[{"token":"a","author":"b","read":["kitchen."]}]}"#)
        } throws: { error in
            let text = (error as? ConfigurationError)?.description ?? ""
            return text.contains("'tokens' is no longer read") && text.contains(#"{"auth": {"tokens""#)
                && text.contains(#""sky.*""#)
        }
    }
}
