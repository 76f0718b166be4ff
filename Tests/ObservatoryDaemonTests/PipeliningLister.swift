import Dispatch
import Foundation
import Observatory
import ObservatorySockets
import ObservatoryTestSupport

/// A client that keeps the server busy listing: one thread sends `list`
/// requests in batches, as fast as the server reads them, and another reads the
/// replies and drops them, so the pipeline stays full, until `stop()`.
///
/// Thread safety: the two threads share only the socket (one sends, one
/// receives) and the `Locked` count of bytes received.
final class PipeliningLister: Sendable {
    private let socket: StreamSocket
    private let receivedBytes = Locked(0)
    private let stopping = Flag()
    private let finished = DispatchGroup()

    /// Connects to the server at `port` and starts listing `prefix`.
    init(port: Int, prefix: String) throws {
        socket = try StreamSocket.connect(host: "127.0.0.1", port: port)
        // The reader wakes for 64 KiB at a time, not for every reply: the lister's
        // own threads should take little of the cores the server and the bystander share.
        var lowWater: Int32 = 65_536
        setsockopt(socket.descriptor, SOL_SOCKET, SO_RCVLOWAT, &lowWater, socklen_t(MemoryLayout<Int32>.size))
        let batch = Array(String(repeating: #"{"op":"list","prefix":"\#(prefix)"}"# + "\n", count: 64).utf8)
        finished.enter()
        Thread { [self] in
            defer { finished.leave() }
            while !stopping.isRaised {
                do {
                    try socket.sendAll(batch, timeoutMilliseconds: 100)
                } catch let error as SocketError where error.errorNumber == ETIMEDOUT {
                    // The server is not reading now: look at the stop flag, then go on.
                } catch {
                    return
                }
            }
        }.start()
        finished.enter()
        Thread { [self] in
            defer { finished.leave() }
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 1)
            defer { buffer.deallocate() }
            while !stopping.isRaised {
                guard socket.waitReadable(timeoutMilliseconds: 100) else { continue }
                switch try? socket.receive(into: buffer) {
                case .bytes(let count): receivedBytes.withLock { $0 += count }
                case .wouldBlock: continue
                case .closed, nil: return
                }
            }
        }.start()
    }

    /// How many bytes of replies the lister has read so far.
    var received: Int { receivedBytes.withLock { $0 } }

    /// Stops both threads, waits for them, and closes the connection.
    func stop() {
        stopping.raise()
        finished.wait()
        socket.close()
    }
}
