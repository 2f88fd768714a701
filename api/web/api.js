// The public API as this page uses it: every call a client author would
// make, with the session kept in the tab's sessionStorage (gone when the
// tab closes), or in localStorage when the player asks to stay signed in
// (every tab, for the 30 days a refresh token lasts); never a cookie.

const BASE = "/api/v1";
const STORE = "kingpost.session";

/** An answer that was not a success, with the server's problem details. */
export class ApiError extends Error {
  constructor(status, problem, retryAfter = null) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
    /** Seconds to wait, from `Retry-After`. */
    this.retryAfter = retryAfter;
  }
}

/** Where the session is kept: the tab's store, or the device's when remembered. */
function store() {
  return localStorage.getItem(STORE) ? localStorage : sessionStorage;
}

export const session = {
  get() {
    return JSON.parse(store().getItem(STORE) || "null");
  },
  set(value) {
    const target = value.remember ? localStorage : sessionStorage;
    target.setItem(STORE, JSON.stringify(value));
  },
  clear() {
    sessionStorage.removeItem(STORE);
    localStorage.removeItem(STORE);
  },
};

async function send(method, path, { body, text, headers = {}, auth = true, signal } = {}) {
  const init = { method, headers: { Accept: "application/json", ...headers }, signal };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  } else if (text !== undefined) {
    init.headers["Content-Type"] = "application/x-chess-pgn";
    init.body = text;
  }
  if (auth && session.get()) {
    init.headers.Authorization = `Bearer ${session.get().access_token}`;
  }
  return fetch(BASE + path, init);
}

/**
 * Trades the refresh token for new tokens. A refresh token serves once (a
 * second use signs the session out), so tabs sharing a remembered session
 * take turns, and a tab that finds the token already traded uses the new one.
 */
async function refresh(used) {
  const trade = async () => {
    const current = session.get();
    if (!current) return false;
    if (current.access_token !== used) return true; // another tab refreshed
    const answer = await send("POST", "/auth/refresh", {
      body: { refresh_token: current.refresh_token },
      auth: false,
    });
    if (!answer.ok) {
      session.clear();
      return false;
    }
    session.set({ ...current, ...(await answer.json()) });
    return true;
  };
  return navigator.locks ? navigator.locks.request("kingpost.refresh", trade) : trade();
}

/** Sends a request, and once more after refreshing an expired access token. */
async function sendRefreshing(method, path, options) {
  const used = session.get()?.access_token;
  const answer = await send(method, path, options);
  if (answer.status === 401 && options.auth !== false && (await refresh(used))) {
    return send(method, path, options);
  }
  return answer;
}

/**
 * Calls the API and gives `{ status, body, headers }`; an access token
 * that expired (they last 15 minutes) is refreshed once and the call
 * repeated. Any answer of 400 and above throws an ApiError.
 */
export async function call(method, path, options = {}) {
  const answer = await sendRefreshing(method, path, options);
  const type = answer.headers.get("Content-Type") || "";
  const body = type.includes("json") ? await answer.json() : null;
  if (answer.status >= 400) {
    const retryAfter = Number(answer.headers.get("Retry-After")) || null;
    throw new ApiError(answer.status, body, retryAfter);
  }
  return { status: answer.status, body, headers: answer.headers };
}

/** Imports PGN text into the caller's collection `name`: the report. */
export async function importPgn(text, name) {
  const path = `/imports?collection=${encodeURIComponent(name)}`;
  return (await call("POST", path, { text })).body;
}

/** Saves the PGN at `path` (read with the session) as the file `name`. */
export async function downloadPgn(path, name) {
  const answer = await sendRefreshing("GET", path, { headers: { Accept: "application/x-chess-pgn" } });
  if (!answer.ok) {
    const type = answer.headers.get("Content-Type") || "";
    throw new ApiError(answer.status, type.includes("json") ? await answer.json() : null);
  }
  const url = URL.createObjectURL(await answer.blob());
  const link = Object.assign(document.createElement("a"), { href: url, download: name });
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A POST that changes state, safe to retry: the server acts once per key. */
export function act(path, body) {
  return call("POST", path, { body, headers: { "Idempotency-Key": randomKey() } });
}

// crypto.randomUUID exists only on https and localhost pages.
function randomKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Signs in; `remember` keeps the session across tabs and days. */
export async function signIn(username, password, remember = false) {
  const { body } = await call("POST", "/auth/token", {
    body: { grant_type: "password", username, password },
    auth: false,
  });
  session.clear();
  stopListening();
  session.set({ ...body, username, remember });
}

export async function signUp(username, password, remember = false) {
  await call("POST", "/accounts", { body: { username, password }, auth: false });
  await signIn(username, password, remember);
}

export function signOut() {
  session.clear();
  stopListening();
}

/**
 * Reads the account's event stream (NDJSON) and calls `onEvent` with each
 * event until `signal` aborts; a dropped stream is reopened from the last
 * event seen, so none is missed. `onOpen` is called each time the stream
 * is open: every event after that moment will arrive.
 */
async function followEvents(signal, onEvent, onOpen = () => {}) {
  let since = null;
  while (!signal.aborted) {
    try {
      const path = since === null ? "/stream/events" : `/stream/events?since=${since}`;
      const answer = await sendRefreshing("GET", path, {
        headers: { Accept: "application/x-ndjson" },
        signal,
      });
      if (!answer.ok) throw new ApiError(answer.status, null);
      onOpen();
      const lines = answer.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await lines.read();
        if (done) break;
        buffer += value;
        for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
          const line = buffer.slice(0, end).trim();
          buffer = buffer.slice(end + 1);
          if (!line) continue; // a keep-alive
          const event = JSON.parse(line);
          since = event.id;
          onEvent(event);
        }
      }
    } catch (error) {
      if (signal.aborted) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 3000));
  }
}

// The tab's one event stream, shared by every view that listens: a page
// that follows its lists and a game's messages holds one connection, not
// one for each view visited.
const listeners = new Set();
let stream = null; // { controller, open } while the session's stream runs

/**
 * Calls `onEvent` with each of the account's events until `signal` aborts;
 * resolves once the stream is open (every event after that arrives).
 */
export function listen(signal, onEvent) {
  listeners.add(onEvent);
  signal.addEventListener("abort", () => listeners.delete(onEvent));
  if (!stream) {
    const controller = new AbortController();
    const open = new Promise((resolve) =>
      followEvents(controller.signal, (event) => listeners.forEach((l) => l(event)), resolve),
    );
    stream = { controller, open };
  }
  return stream.open;
}

/** Ends the stream: the session it was opened for has ended. */
function stopListening() {
  stream?.controller.abort();
  stream = null;
}
