"""grpc.health.v1.Health/Check without generated stubs.

Debian ships no grpcio-health-checking, and generating health_pb2 into this package would clash
with it in protobuf's descriptor pool wherever it is installed. The two messages have one field
each, so they are encoded here by hand (protobuf wire format).
"""

CHECK_METHOD = "/grpc.health.v1.Health/Check"
STATUS_NAMES = {0: "UNKNOWN", 1: "SERVING", 2: "NOT_SERVING", 3: "SERVICE_UNKNOWN"}


def _varint(value):
    out = bytearray()
    while True:
        bits = value & 0x7F
        value >>= 7
        if value:
            out.append(bits | 0x80)
        else:
            out.append(bits)
            return bytes(out)


def _read_varint(data, pos):
    result = shift = 0
    while True:
        if pos >= len(data):
            raise ValueError("truncated varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def encode_request(service):
    """HealthCheckRequest{service = 1: string}."""
    raw = service.encode("utf-8")
    return b"" if not raw else b"\x0a" + _varint(len(raw)) + raw


def decode_response(data):
    """HealthCheckResponse{status = 1: enum} -> "SERVING", ...; unknown fields are skipped."""
    status, pos = 0, 0
    while pos < len(data):
        key, pos = _read_varint(data, pos)
        field, wire_type = key >> 3, key & 7
        if wire_type == 0:
            value, pos = _read_varint(data, pos)
            if field == 1:
                status = value
        elif wire_type == 2:
            length, pos = _read_varint(data, pos)
            pos += length
        elif wire_type == 1:
            pos += 8
        elif wire_type == 5:
            pos += 4
        else:
            raise ValueError(f"unexpected wire type {wire_type}")
    return STATUS_NAMES.get(status, "UNKNOWN")
