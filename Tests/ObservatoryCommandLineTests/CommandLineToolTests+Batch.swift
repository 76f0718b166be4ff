import ObservatoryTestSupport
import Testing

@testable import ObservatoryCommandLine

/// `observatory batch` against a real server.
extension CommandLineToolTests {
    private func runBatch(_ json: String, port: Int, _ more: [String] = []) async -> (CommandLineExitCode, Capture) {
        let capture = Capture()
        let input = CommandLineInput(readStandardInput: { Array(json.utf8) }, readFile: { _ in [] })
        let code = await CommandLineTool.run(
            arguments: ["batch", "--port", String(port)] + more, input: input, output: capture.output)
        return (code, capture)
    }

    @Test func batchPrintsTheRevisionAndOneLinePerOperation() async throws {
        let server = try TestServer()
        defer { server.stop() }
        _ = await runBatch(
            #"[{"op":"set","key":"queue.7","value":1},{"op":"set","key":"owner","value":"me"},"#
                + #"{"op":"set","key":"lock","value":true}]"#, port: server.port)

        let (code, batch) = await runBatch(
            #"{"ops":[{"op":"check","key":"lock","ifVersion":1},{"op":"set","key":"job.7","value":"printing"},"#
                + #"{"op":"set","key":"owner","value":"me"},{"op":"delete","key":"queue.7"}]}"#,
            port: server.port)

        #expect(code == .success, "\(batch.err)")
        #expect(
            batch.out == [
                "revision 2", "check lock (v1)", "set job.7 (v2)", "set owner unchanged (v1)", "delete queue.7 (v2)",
            ])
    }

    @Test func aFailingBatchNamesTheOperationsIndexAndKeyAndExitsOne() async throws {
        let server = try TestServer()
        defer { server.stop() }

        let (code, batch) = await runBatch(
            #"[{"op":"set","key":"job.7","value":"printing"},{"op":"delete","key":"queue.7"}]"#, port: server.port)

        #expect(code == .refused)
        #expect(batch.err.first?.contains("operation 1 (delete queue.7)") == true, "\(batch.err)")
        #expect(batch.err.first?.contains("not_found") == true, "\(batch.err)")
        let (_, get) = await runBatch(#"[{"op":"check","key":"job.7","ifVersion":0}]"#, port: server.port)
        #expect(get.out == ["revision 0", "check job.7 (v0)"], "nothing of the failed batch was applied")
    }
}
