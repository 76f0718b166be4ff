/// The live view the daemon serves at `GET /`: one self-contained page (its
/// only other request is `/observatory.js`, from the same daemon) that shows
/// the keys under a prefix with value, version, author and when the page saw
/// them change, updated live over the WebSocket at `/ws`. Clicking a key shows
/// its recent history (value, author, time), read from `/v1/history`.
///
/// Kept as a string in the binary rather than a resource file, so the daemon
/// is one file to copy (the Docker image copies only the binaries).
enum LivePage {
    /// The page's bytes, served as `text/html; charset=utf-8`.
    static let html = Array(text.utf8)

    private static let text = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Observatory</title>
        <style>
          :root {
            --background: #f6f7f9; --surface: #ffffff; --text: #1d2330; --muted: #687084; --line: #e2e5eb;
            --accent: #3a5bd9; --live: #1f9d55; --warn: #c97a00; --stale: #c0392b; --flash: #fff1b8;
            --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
          }
          @media (prefers-color-scheme: dark) {
            :root {
              --background: #12151c; --surface: #1a1f29; --text: #e6e9ef; --muted: #9aa3b5; --line: #2a3140;
              --accent: #8aa2ff; --live: #3ccf7c; --warn: #f0b429; --stale: #ff6b5e; --flash: #4a3f12;
            }
          }
          * { box-sizing: border-box; }
          body { margin: 0; background: var(--background); color: var(--text);
                 font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
          header { position: sticky; top: 0; z-index: 1; background: var(--surface); border-bottom: 1px solid var(--line);
                   padding: 12px 20px; display: flex; flex-wrap: wrap; gap: 10px 16px; align-items: center; }
          h1 { font-size: 18px; margin: 0; font-weight: 650; letter-spacing: 0.2px; }
          h1 span { color: var(--accent); }
          #state { display: inline-flex; align-items: center; gap: 6px; font-size: 13px; font-weight: 600;
                   padding: 3px 10px; border-radius: 999px; border: 1px solid var(--line); }
          #state::before { content: ""; width: 8px; height: 8px; border-radius: 50%; background: var(--muted); }
          #state.live::before { background: var(--live); box-shadow: 0 0 0 3px color-mix(in srgb, var(--live) 25%, transparent); }
          #state.connecting::before, #state.reconnecting::before { background: var(--warn); }
          #state.stale, #state.closed { color: var(--stale); }
          #state.stale::before, #state.closed::before { background: var(--stale); }
          form { display: flex; gap: 8px; flex: 1 1 320px; justify-content: flex-end; flex-wrap: wrap; }
          input { font: 14px var(--mono); padding: 7px 10px; border-radius: 8px; border: 1px solid var(--line);
                  background: var(--background); color: var(--text); min-width: 0; }
          input:focus { outline: 2px solid var(--accent); outline-offset: -1px; }
          #prefix { flex: 1 1 200px; max-width: 360px; }
          #token { flex: 0 1 200px; }
          button { font: 600 14px system-ui, sans-serif; padding: 7px 14px; border-radius: 8px; border: 0;
                   background: var(--accent); color: #fff; cursor: pointer; }
          main { max-width: 1100px; margin: 0 auto; padding: 16px 20px 40px; }
          #summary { color: var(--muted); font-size: 13px; margin: 4px 0 14px; }
          #summary b { color: var(--text); font-weight: 600; }
          #notice { display: none; margin: 0 0 14px; padding: 10px 14px; border-radius: 8px;
                    background: color-mix(in srgb, var(--stale) 12%, var(--surface)); border: 1px solid var(--stale); }
          #keys { display: grid; gap: 10px; grid-template-columns: repeat(auto-fill, minmax(320px, 1fr)); align-items: start; }
          .entry { background: var(--surface); border: 1px solid var(--line); border-radius: 10px; padding: 10px 14px;
                   min-width: 0; transition: opacity 0.6s; }
          .entry.changed { animation: flash 1.6s ease-out; }
          .entry.deleted { opacity: 0.45; }
          .entry.deleted .key { text-decoration: line-through; }
          .entry.gone { opacity: 0; }
          @keyframes flash { from { background: var(--flash); border-color: var(--warn); } to { background: var(--surface); } }
          .top { display: flex; justify-content: space-between; gap: 10px; align-items: baseline; }
          .key { font: 600 14px var(--mono); overflow-wrap: anywhere; }
          .version { font: 12px var(--mono); color: var(--muted); white-space: nowrap; }
          pre { margin: 8px 0; font: 13px/1.4 var(--mono); white-space: pre-wrap; overflow-wrap: anywhere;
                max-height: 260px; overflow: auto; background: var(--background); border-radius: 6px; padding: 6px 8px; }
          .meta { font-size: 12px; color: var(--muted); display: flex; gap: 6px; flex-wrap: wrap; }
          .meta .author { color: var(--text); font-weight: 600; }
          .meta .bound:empty, .meta .expires:empty { display: none; }
          .session-bound { font-size: 11px; border: 1px solid var(--line); border-radius: 4px; padding: 0 4px; }
          #empty { display: none; color: var(--muted); text-align: center; padding: 48px 12px; }
          #empty code { font-family: var(--mono); background: var(--surface); padding: 2px 6px; border-radius: 4px; }
          .entry { cursor: pointer; }
          #history { border: 1px solid var(--line); border-radius: 10px; background: var(--surface); color: var(--text);
                     max-width: min(680px, 92vw); width: 100%; padding: 14px 18px; }
          #history::backdrop { background: rgb(0 0 0 / 35%); }
          #history h2 { font: 600 15px var(--mono); margin: 0 0 10px; overflow-wrap: anywhere; }
          #history ol { list-style: none; margin: 0; padding: 0; max-height: 60vh; overflow: auto; }
          #history li { border-top: 1px solid var(--line); padding: 6px 0; }
          #history li pre { max-height: 120px; margin: 4px 0 0; }
          footer { color: var(--muted); font-size: 12px; text-align: center; padding: 8px 0 20px; }
          @media (max-width: 560px) {
            header { padding: 10px 12px; }
            main { padding: 12px; }
            #keys { grid-template-columns: 1fr; }
            #prefix, #token { max-width: none; flex: 1 1 100%; }
          }
        </style>
        </head>
        <body>
        <header>
          <h1><span>&#9673;</span> Observatory</h1>
          <span id="state" class="connecting" role="status" aria-live="polite">connecting</span>
          <form id="watch">
            <input id="prefix" name="prefix" placeholder="prefix, e.g. sky." autocomplete="off" spellcheck="false" aria-label="prefix">
            <input id="token" name="token" type="password" placeholder="token" autocomplete="off" aria-label="token" hidden>
            <button type="submit">Watch</button>
          </form>
        </header>
        <main>
          <div id="notice" role="alert"></div>
          <div id="summary">Connecting&hellip;</div>
          <section id="keys" aria-live="polite"></section>
          <div id="empty"></div>
        </main>
        <dialog id="history" aria-label="history of a key">
          <h2></h2><div class="meta"></div><ol></ol>
          <form method="dialog"><button>Close</button></form>
        </dialog>
        <footer>Live view of observatoryd &middot; values update as they change</footer>
        <script type="module">
        import { connect } from "/observatory.js";

        const parameters = new URLSearchParams(location.search);
        let prefix = parameters.get("prefix") || "";
        let token = parameters.get("token") || sessionStorage.getItem("observatory.token") || "";
        const elements = {
          state: document.getElementById("state"), summary: document.getElementById("summary"),
          keys: document.getElementById("keys"), empty: document.getElementById("empty"),
          notice: document.getElementById("notice"), prefix: document.getElementById("prefix"),
          token: document.getElementById("token"), form: document.getElementById("watch"),
        };
        elements.prefix.value = prefix;
        elements.token.value = token;
        if (token) elements.token.hidden = false;

        const entries = new Map();   // key -> { element, entry, seen }
        let observatory;
        let revision = 0;
        let identity = "";

        function relative(time) {
          const seconds = Math.max(0, Math.round((Date.now() - time) / 1000));
          if (seconds < 5) return "just now";
          if (seconds < 60) return `${seconds} s ago`;
          if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
          return new Date(time).toLocaleTimeString();
        }

        function pretty(value) {
          return JSON.stringify(value, null, 2);
        }

        function render(key, entry, how) {
          let record = entries.get(key);
          if (!record) {
            const element = document.createElement("article");
            element.className = "entry";
            element.innerHTML =
              '<div class="top"><span class="key"></span><span class="version"></span></div>' +
              '<pre></pre><div class="meta"><span class="author"></span><span class="session"></span>' +
              '<span class="bound"></span><span class="expires"></span><span>&middot;</span><time></time></div>';
            element.dataset.key = key;
            record = { element };
            entries.set(key, record);
            const after = [...entries.keys()].filter((other) => other > key).sort()[0];
            elements.keys.insertBefore(element, after ? entries.get(after).element : null);
          }
          record.entry = entry;
          record.seen = Date.now();
          const element = record.element;
          element.classList.toggle("deleted", how === "delete");
          element.querySelector(".key").textContent = key;
          element.querySelector(".version").textContent = `v${entry.version}`;
          element.querySelector("pre").textContent = how === "delete" ? deletion(entry) : pretty(entry.value);
          element.querySelector(".author").textContent = entry.author ?? "";
          element.querySelector(".session").textContent = entry.session ? `(${entry.session})` : "";
          const bound = element.querySelector(".bound");
          bound.textContent = entry.ephemeral ? "session-bound" : "";
          bound.className = entry.ephemeral ? "bound session-bound" : "bound";
          // An expiring key counts down from the `ttl` it came with.
          record.expiresAt = how !== "delete" && entry.ttl !== undefined ? Date.now() + entry.ttl * 1000 : undefined;
          showTimeLeft(record);
          const time = element.querySelector("time");
          time.dateTime = new Date(record.seen).toISOString();
          time.title = new Date(record.seen).toLocaleString();
          time.textContent = how === "snapshot" ? "unchanged since the page loaded" : `changed ${relative(record.seen)}`;
          record.fromSnapshot = how === "snapshot";
          if (how !== "snapshot") {
            element.classList.remove("changed");
            void element.offsetWidth;   // restarts the highlight
            element.classList.add("changed");
          }
          if (how === "delete") {
            // The card says who deleted the key for 3 s, fades out, then goes.
            const stillDeleted = () => entries.get(key)?.element === element && element.classList.contains("deleted");
            setTimeout(() => { if (stillDeleted()) element.classList.add("gone"); }, 3000);
            setTimeout(() => {
              if (stillDeleted()) {
                element.remove();
                entries.delete(key);
                summarize();
              }
            }, 3600);
          } else {
            element.classList.remove("gone");
          }
        }

        /** Shows the seconds an expiring key has left, counted down on the page. */
        function showTimeLeft(record) {
          const left = record.expiresAt === undefined ? undefined : Math.max(0, Math.ceil((record.expiresAt - Date.now()) / 1000));
          const text = left === undefined ? "" : left < 60 ? `expires in ${left} s` : left < 3600 ? `expires in ${Math.ceil(left / 60)} min` : `expires at ${new Date(record.expiresAt).toLocaleString()}`;
          record.element.querySelector(".expires").textContent = text;
        }

        /** What a deleted key's card says: by whom, and why when the server deleted it. */
        function deletion(entry) {
          const why = { session_ended: " (its session ended)", expired: " (it expired)" }[entry.reason] ?? "";
          return `deleted by ${entry.author ?? "someone"}${why}`;
        }

        function clear() {
          entries.clear();
          elements.keys.replaceChildren();
        }

        function summarize() {
          const live = [...entries.values()].filter((record) => !record.element.classList.contains("deleted")).length;
          const where = prefix ? `under <b></b>` : "in the store";
          elements.summary.innerHTML = `<b>${live}</b> ${live === 1 ? "key" : "keys"} ${where} &middot; revision ${revision}` +
            (identity && elements.state.className === "live" ? ` &middot; you are ${identity}` : "");
          if (prefix) elements.summary.querySelectorAll("b")[1].textContent = `"${prefix}"`;
          elements.empty.style.display = live === 0 ? "block" : "none";
          elements.empty.innerHTML = "No keys yet. Change one from a terminal:<br><br><code></code>";
          elements.empty.querySelector("code").textContent = `observatory set ${prefix || ""}${prefix.endsWith(".") || !prefix ? "" : "."}greeting '"hello"'`;
        }

        function showNotice(text) {
          elements.notice.textContent = text;
          elements.notice.style.display = text ? "block" : "none";
        }

        function handle(change) {
          switch (change.type) {
            case "snapshot":
            case "reset":
              clear();
              revision = Math.max(revision, change.revision || 0);
              for (const entry of change.values) render(entry.key, entry, "snapshot");
              break;
            case "update":
              revision = Math.max(revision, change.version);
              render(change.key, { value: change.new, version: change.version, author: change.author,
                                   session: change.session, ephemeral: change.ephemeral, ttl: change.ttl }, "update");
              break;
            case "delete":
              revision = Math.max(revision, change.version);
              render(change.key, { value: null, version: change.version, author: change.author,
                                   session: change.session, reason: change.reason }, "delete");
              break;
            case "error":
              if (change.error.code === "unauthenticated" || change.error.code === "forbidden") {
                elements.token.hidden = false;
                showNotice(`${change.error.message} Enter a token above.`);
              } else {
                showNotice(change.error.message);
              }
              break;
          }
          summarize();
        }

        function start() {
          if (observatory) observatory.close();
          clear();
          showNotice("");
          observatory = connect({ name: "live-view", token: token || undefined });
          observatory.onState((state, detail) => {
            elements.state.className = state;
            elements.state.textContent = state;
            elements.state.title = detail.reason ? `last error: ${detail.reason}` : "";
            // Only a hello's reply names the author; other live updates (an error, a shutdown) do not.
            if (state === "live" && detail.author !== undefined) {
              identity = `${detail.author} (${detail.session})`;
              showNotice("");
            }
            if (detail.error && (detail.error.code === "unauthenticated")) {
              elements.token.hidden = false;
              showNotice("This server needs a token: enter it above and press Watch.");
            }
            summarize();
          });
          observatory.observe({ prefix }, handle);
        }

        /** Shows the recent held changes of `key`, newest first: value, author and time. */
        async function showHistory(key) {
          const dialog = document.getElementById("history");
          dialog.querySelector("h2").textContent = key;
          const status = dialog.querySelector(".meta");
          const list = dialog.querySelector("ol");
          status.textContent = "loading…";
          list.replaceChildren();
          if (!dialog.open) dialog.showModal();
          const address = `/v1/history?key=${encodeURIComponent(key)}&limit=20&newestFirst=true`;
          try {
            const response = await fetch(address, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
            const reply = await response.json();
            if (!response.ok) throw new Error(reply.error?.message ?? response.statusText);
            status.textContent = reply.changes.length === 0 ? "the server holds no changes of this key"
              : `the last ${reply.changes.length} changes the server holds` + (reply.more ? " (older ones too)" : "");
            for (const change of reply.changes) {
              const item = document.createElement("li");
              item.innerHTML = '<div class="meta"><span class="author"></span><span></span><span>&middot;</span><time></time></div><pre></pre>';
              const spans = item.querySelectorAll(".meta span");
              spans[0].textContent = change.author;
              spans[1].textContent = `v${change.version}`;
              const time = item.querySelector("time");
              time.dateTime = new Date(change.at).toISOString();
              time.textContent = new Date(change.at).toLocaleString();
              item.querySelector("pre").textContent = change.event === "delete" ? deletion(change) : pretty(change.new);
              list.append(item);
            }
          } catch (error) {
            status.textContent = `no history: ${error.message}`;
          }
        }

        elements.keys.addEventListener("click", (event) => {
          const card = event.target.closest(".entry");
          if (card) showHistory(card.dataset.key);
        });

        elements.form.addEventListener("submit", (event) => {
          event.preventDefault();
          prefix = elements.prefix.value.trim();
          token = elements.token.value;
          if (token) sessionStorage.setItem("observatory.token", token);
          const address = new URL(location.href);
          if (prefix) address.searchParams.set("prefix", prefix); else address.searchParams.delete("prefix");
          address.searchParams.delete("token");
          history.replaceState(null, "", address);
          start();
        });

        setInterval(() => {
          for (const record of entries.values()) {
            showTimeLeft(record);
            if (record.fromSnapshot) continue;
            record.element.querySelector("time").textContent = `changed ${relative(record.seen)}`;
          }
        }, 1000);

        start();
        </script>
        </body>
        </html>
        """#
}
