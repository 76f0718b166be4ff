/// The ES module the daemon serves at `GET /observatory.js`: the line
/// protocol over WebSocket for web pages (connect, observe with a callback,
/// get, set, delete, list, reconnect with resume). The live page uses it, and
/// so can anyone's own page.
///
/// Kept as a string in the binary rather than a resource file, so the daemon
/// is one file to copy.
enum ObservatoryScript {
    /// The module's bytes, served as `text/javascript; charset=utf-8`.
    static let javascript = Array(text.utf8)

    private static let text = #"""
        // observatory.js: Observatory's line protocol over WebSocket, for web pages.
        // Served by observatoryd at /observatory.js; nothing to install.
        //
        //   import { connect } from "/observatory.js";
        //   const observatory = connect({ name: "dashboard" });
        //   observatory.onState((state) => console.log(state));      // connecting, live, reconnecting, stale, closed
        //   observatory.observe({ prefix: "sky." }, (change) => {
        //     // change.type: "snapshot" | "reset" (change.values, change.revision),
        //     //              "update" | "delete" (change.key, .old, .new, .version, .author, .session)
        //   });
        //   // slow: "close" (default "coalesce"): every intermediate value, never merged;
        //   // if the page falls behind, the server closes and the page resumes without a gap.
        //   observatory.observe({ key: "sky.color", slow: "close" }, handler);
        //   await observatory.set("sky.color", "red");
        //   const entry = await observatory.get("sky.color");        // { key, value, version, author, session }
        //
        // After a lost connection it reconnects with backoff and resumes every
        // observation from the last revision it saw: missed changes arrive one by one,
        // or, when the server cannot replay them, as a "reset" with a fresh snapshot.

        const defaultBackoff = { initial: 250, maximum: 5000 };
        const staleAfterMilliseconds = 5000;
        const pingEveryMilliseconds = 15000;
        const pingTimeoutMilliseconds = 10000;

        /** An error reply of the server: `code` is the protocol's error code. */
        export class ObservatoryError extends Error {
          constructor(error) {
            super(error.message || error.code);
            this.name = "ObservatoryError";
            this.code = error.code;
            this.details = error;
          }
        }

        /** The WebSocket address of the server that served this page. */
        function defaultURL() {
          const scheme = location.protocol === "https:" ? "wss:" : "ws:";
          return `${scheme}//${location.host}/ws`;
        }

        function matches(target, key) {
          return target.key !== undefined ? key === target.key : key.startsWith(target.prefix);
        }

        /** One connection to observatoryd that keeps itself alive. */
        export class Observatory {
          constructor(options = {}) {
            this.url = options.url || defaultURL();
            this.name = options.name;
            this.token = options.token;
            this.backoff = { ...defaultBackoff, ...(options.backoff || {}) };
            this.state = "connecting";
            this.epoch = undefined;
            this.revision = 0;
            this.session = undefined;
            this.author = undefined;
            this.socket = undefined;
            this.pending = new Map();
            this.nextId = 1;
            this.observations = new Set();
            this.stateListeners = new Set();
            this.attempt = 0;
            this.closed = false;
            this.timers = {};
          }

          /** Calls `listener(state, detail)` on every change of the connection's state. */
          onState(listener) {
            this.stateListeners.add(listener);
            listener(this.state, {});
            return () => this.stateListeners.delete(listener);
          }

          /** Opens the connection (connect() does this for you). */
          open() {
            if (this.closed || this.socket) return;
            let socket;
            try {
              socket = new WebSocket(this.url);
            } catch (error) {
              this.scheduleReconnect(String(error));
              return;
            }
            this.socket = socket;
            socket.onopen = () => this.greet(socket);
            socket.onmessage = (message) => this.receive(socket, message.data);
            socket.onclose = (event) => this.lost(socket, event.reason || `closed (${event.code})`);
            socket.onerror = () => {};
          }

          /** Ends the connection for good. */
          close() {
            this.closed = true;
            for (const timer of Object.values(this.timers)) clearTimeout(timer);
            if (this.socket) this.socket.close(1000, "closed by the page");
            this.socket = undefined;
            this.failPending("the connection was closed");
            this.setState("closed");
          }

          /**
           * Observes `{ key }` or `{ prefix }`; `handler(change)` receives a
           * "snapshot" first, then every "update" and "delete", and a "reset" when
           * a reconnect could not resume. Returns a function that stops observing.
           */
          observe(target, handler) {
            const observation = { target: { ...target }, handler, revision: undefined, epoch: undefined };
            this.observations.add(observation);
            if (this.state === "live") this.subscribe(observation);
            return () => {
              this.observations.delete(observation);
              if (this.state === "live") this.request({ op: "unobserve", ...observation.target }).catch(() => {});
            };
          }

          /** The entry of `key`: `{ key, value, version, author, session }`. */
          get(key) {
            return this.request({ op: "get", key });
          }

          /** Sets `key` to `value`; options: `ifVersion`, `ephemeral`, `requestId`. */
          set(key, value, options = {}) {
            return this.request({ op: "set", key, value, requestId: crypto.randomUUID(), ...options });
          }

          /** Deletes `key`; options: `ifVersion`, `requestId`. */
          delete(key, options = {}) {
            return this.request({ op: "delete", key, requestId: crypto.randomUUID(), ...options });
          }

          /** One page of keys under `prefix`: `{ keys: [{ key, version }], more }`. */
          list(prefix = "", options = {}) {
            return this.request({ op: "list", prefix, ...options });
          }

          /** Sends one request and resolves with its reply (rejects with ObservatoryError). */
          request(fields) {
            const socket = this.socket;
            if (!socket || socket.readyState !== WebSocket.OPEN) {
              return Promise.reject(new ObservatoryError({ code: "not_connected", message: "not connected" }));
            }
            const id = this.nextId++;
            return new Promise((resolve, reject) => {
              this.pending.set(id, { resolve, reject });
              socket.send(JSON.stringify({ ...fields, id }));
            });
          }

          // Connection life.

          greet(socket) {
            if (socket !== this.socket) return;
            const hello = { op: "hello" };
            if (this.name) hello.name = this.name;
            if (this.token) hello.token = this.token;
            this.request(hello)
              .then((reply) => {
                this.epoch = reply.epoch;
                this.session = reply.session;
                this.author = reply.author;
                this.revision = Math.max(this.revision, reply.revision || 0);
                this.attempt = 0;
                this.setState("live", { author: reply.author, session: reply.session, epoch: reply.epoch });
                for (const observation of this.observations) this.subscribe(observation);
                this.schedulePing();
              })
              .catch((error) => {
                this.setState(this.state, { error });
                socket.close(4000, error.message);
              });
          }

          subscribe(observation) {
            const fields = { op: "observe", ...observation.target };
            const resuming = observation.revision !== undefined;
            if (resuming) {
              fields.fromRevision = observation.revision;
              if (observation.epoch) fields.epoch = observation.epoch;
            }
            this.request(fields)
              .then((reply) => {
                observation.epoch = this.epoch;
                observation.socket = this.socket;
                // Resumed: the missed changes follow this reply as events, each moving
                // the observation's revision on.
                if (reply.resumed === true) return;
                observation.revision = reply.revision;
                observation.handler({
                  type: resuming ? "reset" : "snapshot",
                  values: reply.values || [],
                  revision: reply.revision,
                });
              })
              .catch((error) => observation.handler({ type: "error", error }));
          }

          receive(socket, data) {
            if (socket !== this.socket) return;
            let frame;
            try {
              frame = JSON.parse(data);
            } catch {
              return;
            }
            if (frame.event !== undefined) {
              this.deliver(frame);
              return;
            }
            if (frame.id === null || frame.id === undefined) {
              // An error that ends the connection (slow_consumer, unavailable, ...):
              // every event up to its revision was sent, so resuming misses nothing.
              if (frame.error && frame.error.revision !== undefined) {
                this.revision = Math.max(this.revision, frame.error.revision);
                // An observation answered on this socket resumes from there: the last
                // event it saw may be a coalesced one, ahead of an event that was dropped.
                for (const observation of this.observations) {
                  if (observation.socket === socket) observation.revision = frame.error.revision;
                }
              }
              this.setState(this.state, { error: frame.error });
              return;
            }
            const waiter = this.pending.get(frame.id);
            if (!waiter) return;
            this.pending.delete(frame.id);
            if (frame.ok) {
              const { ok, id, ...fields } = frame;
              waiter.resolve(fields);
            } else {
              waiter.reject(new ObservatoryError(frame.error || { code: "internal", message: "no error" }));
            }
          }

          deliver(event) {
            if (event.event === "shutdown") {
              this.setState(this.state, { shutdown: true });
              return;
            }
            this.revision = Math.max(this.revision, event.version || 0);
            for (const observation of this.observations) {
              if (!matches(observation.target, event.key)) continue;
              if (observation.revision !== undefined && event.version <= observation.revision) continue;
              observation.revision = event.version;
              const { event: type, ...fields } = event;
              observation.handler({ type, ...fields });
            }
          }

          lost(socket, reason) {
            if (socket !== this.socket) return;
            this.socket = undefined;
            clearTimeout(this.timers.ping);
            clearTimeout(this.timers.pingTimeout);
            this.failPending(reason);
            if (this.closed) return;
            this.scheduleReconnect(reason);
          }

          scheduleReconnect(reason) {
            const delay = Math.min(this.backoff.maximum, this.backoff.initial * 2 ** this.attempt);
            this.attempt += 1;
            const since = this.disconnectedAt || Date.now();
            this.disconnectedAt = since;
            this.setState(Date.now() - since >= staleAfterMilliseconds ? "stale" : "reconnecting", { reason, retryIn: delay });
            clearTimeout(this.timers.stale);
            this.timers.stale = setTimeout(() => {
              if (this.state === "reconnecting") this.setState("stale", { reason });
            }, Math.max(0, since + staleAfterMilliseconds - Date.now()));
            clearTimeout(this.timers.reconnect);
            this.timers.reconnect = setTimeout(() => this.open(), delay);
          }

          schedulePing() {
            clearTimeout(this.timers.ping);
            this.timers.ping = setTimeout(() => {
              const socket = this.socket;
              if (!socket) return;
              this.timers.pingTimeout = setTimeout(() => socket.close(4001, "no reply to ping"), pingTimeoutMilliseconds);
              this.request({ op: "ping" })
                .then((reply) => {
                  clearTimeout(this.timers.pingTimeout);
                  this.revision = Math.max(this.revision, reply.revision || 0);
                  this.schedulePing();
                })
                .catch(() => {});
            }, pingEveryMilliseconds);
          }

          failPending(reason) {
            const error = new ObservatoryError({ code: "connection_lost", message: reason });
            for (const waiter of this.pending.values()) waiter.reject(error);
            this.pending.clear();
          }

          setState(state, detail = {}) {
            if (state === "live") {
              this.disconnectedAt = undefined;
              clearTimeout(this.timers.stale);
            }
            this.state = state;
            for (const listener of this.stateListeners) listener(state, detail);
          }
        }

        /** Creates an Observatory connection and opens it. */
        export function connect(options = {}) {
          const observatory = new Observatory(options);
          observatory.open();
          return observatory;
        }
        """#
}
