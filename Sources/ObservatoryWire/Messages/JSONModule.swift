// The protocol's values are JSON: every program that imports this module works
// with `JSONValue`, `EncodedJSON` and `JSONObject`, so they come with it. They live
// in `ObservatoryJSON`, a module that imports nothing of ours, so that the etcd
// client can use the same parser and writer without the protocol.
@_exported import ObservatoryJSON
