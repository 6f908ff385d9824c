/**
 * A minimal `EventSource` for Node 20 (which has none), on `fetch`, with request
 * headers: what `httpSubscriptionLink({ EventSource })` needs. It never
 * reconnects: a failed or finished stream closes it.
 */
type Listener = (event: { data?: string; lastEventId?: string; status?: number }) => void;

export interface TestEventSourceInit {
  readonly headers?: Record<string, string>;
}

export class TestEventSource {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 2;
  readonly CONNECTING = 0;
  readonly OPEN = 1;
  readonly CLOSED = 2;
  readyState = 0;
  readonly url: string;
  readonly #listeners = new Map<string, Set<Listener>>();
  readonly #abort = new AbortController();

  constructor(url: string, init?: TestEventSourceInit) {
    this.url = url;
    void this.#run(init?.headers ?? {});
  }

  addEventListener(type: string, listener: Listener): void {
    let set = this.#listeners.get(type);
    if (!set) this.#listeners.set(type, (set = new Set()));
    set.add(listener);
  }

  removeEventListener(type: string, listener: Listener): void {
    this.#listeners.get(type)?.delete(listener);
  }

  close(): void {
    this.readyState = this.CLOSED;
    this.#abort.abort();
  }

  #dispatch(type: string, event: Parameters<Listener>[0]): void {
    for (const listener of this.#listeners.get(type) ?? []) listener(event);
  }

  async #run(headers: Record<string, string>): Promise<void> {
    try {
      const response = await fetch(this.url, {
        headers: { accept: 'text/event-stream', ...headers },
        signal: this.#abort.signal,
      });
      if (!response.ok || !response.body) {
        this.readyState = this.CLOSED;
        this.#dispatch('error', { status: response.status });
        return;
      }
      this.readyState = this.OPEN;
      this.#dispatch('open', {});
      const decoder = new TextDecoder();
      let buffer = '';
      // Cast: DOM typings (pulled in by some GraphQL servers) lack the async iterator.
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          this.#event(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      }
    } catch {
      // aborted by close(), or the connection failed
    }
    if (this.readyState !== this.CLOSED) {
      this.readyState = this.CLOSED;
      this.#dispatch('error', {});
    }
  }

  #event(block: string): void {
    let type = 'message';
    const data: string[] = [];
    let id: string | undefined;
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /u, '');
      if (field === 'event') type = value;
      else if (field === 'data') data.push(value);
      else if (field === 'id') id = value;
    }
    if (this.readyState === this.CLOSED) return;
    this.#dispatch(type, {
      data: data.join('\n'),
      ...(id === undefined ? {} : { lastEventId: id }),
    });
  }
}
