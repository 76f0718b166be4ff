import ObservatoryHTTP
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// The web face's machine without sockets: requests in, session frames and bytes out.
@Suite struct HTTPConnectionMachineTests {
    private func machine(maxFrameBytes: Int = 1_024) -> HTTPConnectionMachine {
        HTTPConnectionMachine(epoch: "e1", maxFrameBytes: maxFrameBytes)
    }

    private func text(_ bytes: some Sequence<UInt8>) -> String {
        String(decoding: Array(bytes), as: UTF8.self)
    }

    /// Feeds `request`, processes it, and returns the frames for the session.
    private func feed(_ machine: inout HTTPConnectionMachine, _ request: String, context: WebContext = .serving)
        -> String
    {
        machine.receive(Array(request.utf8))
        return text(machine.process(context).sessionBytes)
    }

    /// Produces from `queued` and takes everything to send.
    private func drain(_ machine: inout HTTPConnectionMachine, _ queued: String = "") -> String {
        machine.produce(from: Array(queued.utf8)[...])
        let bytes = machine.pendingWire
        machine.markSent(bytes.count)
        return text(bytes)
    }

    @Test func healthzAnswersOkWithoutTheSession() {
        var machine = machine()
        #expect(feed(&machine, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n") == "")
        let response = drain(&machine)
        #expect(response.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(response.hasSuffix("\r\n\r\nok"))
        #expect(!machine.wantsToClose)
    }

    @Test func healthzAnswers503WhileTheServerDoesNotServe() {
        var machine = machine()
        _ = feed(&machine, "GET /healthz HTTP/1.1\r\n\r\n", context: WebContext(isServing: false) { [] })
        #expect(drain(&machine).hasPrefix("HTTP/1.1 503 "))
    }

    @Test func livePageAndScriptHaveTheirContentTypes() {
        var machine = machine()
        _ = feed(&machine, "GET / HTTP/1.1\r\n\r\nGET /observatory.js HTTP/1.1\r\n\r\n")
        let responses = drain(&machine)
        #expect(responses.contains("Content-Type: text/html; charset=utf-8"))
        #expect(responses.contains("Content-Type: text/javascript; charset=utf-8"))
    }

    @Test func keyGetBecomesAGetFrameAndItsReplyTheResponseWithoutOkAndID() {
        var machine = machine()
        let frames = feed(&machine, "GET /v1/keys/sky.a%2Fb%20c HTTP/1.1\r\n\r\n")
        #expect(frames == #"{"op":"get","id":1,"key":"sky.a/b c"}"# + "\n")
        #expect(drain(&machine) == "")
        let response = drain(&machine, #"{"ok":true,"id":1,"key":"sky.a/b c","value":1,"version":3}"# + "\n")
        #expect(response.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(response.hasSuffix(#"{"key":"sky.a/b c","value":1,"version":3}"#))
    }

    @Test func putCarriesTheBodyIfMatchAndIdempotencyKey() {
        var machine = machine()
        let request =
            "PUT /v1/keys/a HTTP/1.1\r\nIf-Match: \"4\"\r\nIdempotency-Key: r1\r\nContent-Length: 11\r\n\r\n{\"x\": [1]}\n"
        #expect(
            feed(&machine, request)
                == #"{"op":"set","id":1,"key":"a","ifVersion":4,"requestId":"r1","value":{"x": [1]}}"# + "\n",
            "the body's bytes as sent")
    }

    @Test func aBodyThatIsNotJSONIs400BadFrame() {
        var machine = machine()
        #expect(feed(&machine, "PUT /v1/keys/a HTTP/1.1\r\nContent-Length: 3\r\n\r\nred") == "")
        let response = drain(&machine)
        #expect(response.hasPrefix("HTTP/1.1 400 "))
        #expect(response.contains(#""code":"bad_frame""#))
    }

    @Test func aMalformedIfMatchIs400() {
        var machine = machine()
        _ = feed(&machine, "DELETE /v1/keys/a HTTP/1.1\r\nIf-Match: W/\"1\"\r\n\r\n")
        #expect(drain(&machine).hasPrefix("HTTP/1.1 400 "))
    }

    @Test func errorRepliesGetTheirStatusesAndAConflictItsVersion() {
        let cases: [(String, String)] = [
            ("not_found", "404"), ("conflict", "409"), ("forbidden", "403"), ("unauthenticated", "401"),
            ("invalid_key", "400"), ("value_too_large", "413"), ("limit_exceeded", "429"), ("shutting_down", "503"),
            ("unavailable", "503"),
        ]
        for (code, status) in cases {
            var machine = machine()
            _ = feed(&machine, "DELETE /v1/keys/a HTTP/1.1\r\n\r\n")
            let reply = #"{"ok":false,"id":1,"error":{"code":""# + code + #"","message":"m","version":2}}"# + "\n"
            let response = drain(&machine, reply)
            #expect(response.hasPrefix("HTTP/1.1 \(status) "), "\(code)")
            #expect(response.hasSuffix(#"{"error":{"code":""# + code + #"","message":"m","version":2}}"#))
        }
    }

    @Test func listTakesPrefixAfterAndLimitFromTheQuery() {
        var machine = machine()
        #expect(
            feed(&machine, "GET /v1/keys?prefix=sky.&after=sky.a&limit=5 HTTP/1.1\r\n\r\n")
                == #"{"op":"list","id":1,"prefix":"sky.","after":"sky.a","limit":5}"# + "\n")
    }

    @Test func pipelinedResponsesKeepTheRequestOrder() {
        var machine = machine()
        _ = feed(&machine, "GET /healthz HTTP/1.1\r\n\r\nGET /v1/keys/a HTTP/1.1\r\n\r\nGET /nothing HTTP/1.1\r\n\r\n")
        let first = drain(&machine)
        #expect(first.hasPrefix("HTTP/1.1 200 ") && first.hasSuffix("ok"))
        let rest = drain(&machine, #"{"ok":false,"id":1,"error":{"code":"not_found","message":"m"}}"# + "\n")
        let notFound = rest.components(separatedBy: "HTTP/1.1 404 ")
        #expect(notFound.count == 3)
        #expect(notFound[1].contains(#""message":"m""#))
    }

    @Test func anUnknownMethodOnAKnownPathIs405WithAllowAndCloses() {
        var machine = machine()
        _ = feed(&machine, "POST /healthz HTTP/1.1\r\n\r\nGET /healthz HTTP/1.1\r\n\r\n")
        let response = drain(&machine)
        #expect(response.hasPrefix("HTTP/1.1 405 "))
        #expect(response.contains("Allow: GET, HEAD\r\n"))
        #expect(!response.contains("200 OK"))
        #expect(machine.wantsToClose && machine.closesWhenSent)
    }

    @Test func anUnknownPathIs404AndKeepsTheConnection() {
        var machine = machine()
        _ = feed(&machine, "GET /nothing HTTP/1.1\r\n\r\n")
        #expect(drain(&machine).hasPrefix("HTTP/1.1 404 "))
        #expect(!machine.wantsToClose)
    }

    @Test func aHeadOver16KiBIs431AndCloses() {
        var machine = machine()
        let filler = String(repeating: "a", count: 17_000)
        _ = feed(&machine, "GET /healthz HTTP/1.1\r\nX-Filler: \(filler)\r\n\r\n")
        #expect(drain(&machine).hasPrefix("HTTP/1.1 431 "))
        #expect(machine.closesWhenSent)
    }

    @Test func aBodyOverMaxFrameBytesIs413() {
        var machine = machine(maxFrameBytes: 10)
        _ = feed(&machine, "PUT /v1/keys/a HTTP/1.1\r\nContent-Length: 11\r\n\r\n")
        let response = drain(&machine)
        #expect(response.hasPrefix("HTTP/1.1 413 "))
        #expect(response.contains("frame_too_large"))
    }

    @Test func aMalformedHeaderIs400AndCloses() {
        var machine = machine()
        _ = feed(&machine, "GET /healthz HTTP/1.1\r\nNo colon here\r\n\r\n")
        #expect(drain(&machine).hasPrefix("HTTP/1.1 400 "))
        #expect(machine.closesWhenSent)
    }

    @Test func connectionCloseEndsAfterTheResponse() {
        var machine = machine()
        _ = feed(&machine, "GET /v1/keys/a HTTP/1.1\r\nConnection: close\r\n\r\nGET /healthz HTTP/1.1\r\n\r\n")
        #expect(machine.wantsToClose)
        let response = drain(&machine, #"{"ok":true,"id":1,"key":"a"}"# + "\n")
        #expect(response.contains("Connection: close"))
        #expect(!response.contains("\r\n\r\nok"))
    }

    @Test func aBearerTokenAndANameSendOneHelloFirst() {
        var machine = machine()
        let frames = feed(
            &machine,
            "GET /v1/keys/a?name=bob HTTP/1.1\r\nAuthorization: Bearer t1\r\n\r\n"
                + "GET /v1/keys/b HTTP/1.1\r\nAuthorization: bearer t1\r\n\r\n")
        #expect(
            frames
                == #"{"op":"hello","id":1,"token":"t1","name":"bob"}"# + "\n" + #"{"op":"get","id":2,"key":"a"}"#
                + "\n" + #"{"op":"get","id":3,"key":"b"}"# + "\n")
        let helloReply = #"{"ok":true,"id":1,"author":"alice"}"# + "\n"
        #expect(drain(&machine, helloReply) == "")
    }

    @Test func aFailedHelloIs401AndClosesAndForHeadWithoutItsBody() {
        for method in ["GET", "HEAD"] {
            var machine = machine()
            _ = feed(&machine, "\(method) /v1/keys/a HTTP/1.1\r\nAuthorization: Bearer wrong\r\n\r\n")
            let response = drain(
                &machine, #"{"ok":false,"id":1,"error":{"code":"unauthenticated","message":"m"}}"# + "\n")
            #expect(response.hasPrefix("HTTP/1.1 401 "))
            #expect(response.hasSuffix(method == "HEAD" ? "\r\n\r\n" : "}"))
            #expect(machine.closesWhenSent)
        }
    }

    @Test func aTokenInTheQueryCountsOnlyOnEventsAndWebSocket() {
        var machine = machine()
        #expect(feed(&machine, "GET /v1/keys/a?token=t1 HTTP/1.1\r\n\r\n") == #"{"op":"get","id":1,"key":"a"}"# + "\n")
    }

    @Test func tooManyOutstandingRequestsPauseReading() {
        var machine = machine()
        let requests = String(repeating: "GET /v1/keys/a HTTP/1.1\r\n\r\n", count: 40)
        machine.receive(Array(requests.utf8))
        let step = machine.process(.serving)
        #expect(step.pausesReading)
        #expect(text(step.sessionBytes).split(separator: "\n").count == HTTPConnectionMachine.maxOutstanding)
    }

    // MARK: HEAD

    /// The response to `GET path`, and to `HEAD path` on a fresh machine.
    private func getAndHead(_ path: String) -> (get: String, head: String) {
        var getting = machine()
        _ = feed(&getting, "GET \(path) HTTP/1.1\r\n\r\n")
        var heading = machine()
        _ = feed(&heading, "HEAD \(path) HTTP/1.1\r\n\r\n")
        return (drain(&getting), drain(&heading))
    }

    @Test func headAnswersEveryFixedRouteWithGetsStatusAndHeadersButNoBody() {
        for path in ["/", "/observatory.js", "/healthz", "/metrics", "/nothing"] {
            let (get, head) = getAndHead(path)
            let getHead = get.components(separatedBy: "\r\n\r\n")[0] + "\r\n\r\n"
            #expect(head == getHead, "\(path)")
            #expect(head.contains("Content-Length: \(get.utf8.count - getHead.utf8.count)\r\n"), "\(path)")
        }
    }

    @Test func headOnAKeyAsksTheSessionAndSendsTheReplysHeadersWithoutItsBody() {
        var machine = machine()
        #expect(feed(&machine, "HEAD /v1/keys/a HTTP/1.1\r\n\r\n") == #"{"op":"get","id":1,"key":"a"}"# + "\n")
        let body = #"{"key":"a","value":1,"version":3}"#
        let response = drain(&machine, #"{"ok":true,"id":1,"key":"a","value":1,"version":3}"# + "\n")
        #expect(response.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(response.contains("Content-Length: \(body.utf8.count)\r\n"))
        #expect(response.hasSuffix("\r\n\r\n"))
        #expect(!machine.wantsToClose)
    }

    @Test func headOnAListOrAFailedKeyKeepsTheErrorStatusWithoutTheBody() {
        var machine = machine()
        _ = feed(&machine, "HEAD /v1/keys?prefix=a HTTP/1.1\r\n\r\nGET /healthz HTTP/1.1\r\n\r\n")
        let response = drain(&machine, #"{"ok":false,"id":1,"error":{"code":"forbidden","message":"m"}}"# + "\n")
        #expect(response.hasPrefix("HTTP/1.1 403 "))
        #expect(!response.contains("forbidden"))
        #expect(response.hasSuffix("\r\n\r\nok"))
    }

    @Test func headOnAStreamIs405AllowingOnlyGet() {
        for path in ["/events?key=a", "/ws"] {
            var machine = machine()
            #expect(feed(&machine, "HEAD \(path) HTTP/1.1\r\n\r\n") == "")
            let response = drain(&machine)
            #expect(response.hasPrefix("HTTP/1.1 405 "), "\(path)")
            #expect(response.contains("Allow: GET\r\n"), "\(path)")
            #expect(response.hasSuffix("\r\n\r\n"), "\(path)")
            #expect(!machine.isEventStream && !machine.isWebSocket)
        }
    }
}
