export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  key?: string;
  json?: unknown;
  body?: RequestInit['body'];
  headers?: Record<string, string>;
}

/** Talks to the real server over HTTP; parses JSON bodies and keeps the raw text. */
export class ApiClient {
  constructor(readonly baseUrl: string) {}

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key !== undefined) headers['x-api-key'] = options.key;
    let body = options.body;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    }
    const res = await fetch(`${this.baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    const isJson = res.headers.get('content-type')?.includes('application/json');
    return { status: res.status, headers: res.headers, body: (isJson && text ? JSON.parse(text) : text) as T, text };
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }
  post<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('POST', path, options);
  }
  put<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('PUT', path, options);
  }
  patch<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('PATCH', path, options);
  }
  delete<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('DELETE', path, options);
  }
}
