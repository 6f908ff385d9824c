/** Whether a value is a thenable (a promise from any realm). @internal */
export function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<PromiseLike<T>>).then === 'function'
  );
}
