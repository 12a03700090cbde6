"""The gRPC service: translates between tasklife.v1 messages and the domain and storage layers."""
