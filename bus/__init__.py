"""The wire: topology, codec, publisher, RPC. The only package that imports pika."""
