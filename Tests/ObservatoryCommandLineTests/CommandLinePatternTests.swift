import ObservatoryClient
import ObservatoryWire
import Testing

@testable import ObservatoryCommandLine

@Suite struct CommandLinePatternTests {
    @Test func listAndWatchReadAPrefixStarTheSameWay() throws {
        #expect(try CommandLineArguments.parse(["list", "sky.*"]).command == .list(prefix: "sky."))
        #expect(try CommandLineArguments.parse(["watch", "sky.*"]).command == .watch(.prefix("sky.")))
        #expect(try CommandLineArguments.parse(["list", "*"]).command == .list(prefix: ""))
        #expect(try CommandLineArguments.parse(["watch", "*"]).command == .watch(.prefix("")))
    }

    @Test func withoutAStarListTakesAPrefixAndWatchAKey() throws {
        #expect(try CommandLineArguments.parse(["list", "sky."]).command == .list(prefix: "sky."))
        #expect(try CommandLineArguments.parse(["watch", "sky.color"]).command == .watch(.key("sky.color")))
    }

    @Test(arguments: [["list", "sk*y"], ["watch", "sk*y"], ["watch", "*.color"], ["list", "sky.**"]])
    func aStarBeforeTheEndIsAnErrorNotALiteralKey(arguments: [String]) {
        #expect {
            try CommandLineArguments.parse(arguments)
        } throws: { error in
            let message = (error as? CommandLineUsageError)?.message ?? ""
            return message.hasPrefix("\(arguments[0]): '\(arguments[1])' has a * before its end")
        }
    }
}
