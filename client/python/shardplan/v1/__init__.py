"""The API's generated messages and gRPC stubs (shardplan.v1, proto/shardplan/v1/*.proto).

The *_pb2.py, *_pb2.pyi and *_pb2_grpc.py files here are written by
scripts/generate_python_stubs.sh and committed; a ctest (client_python_stubs_current) fails when
they differ from what proto/ generates.
"""
