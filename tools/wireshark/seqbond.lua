-- Wireshark dissector for the seqbond shim (EtherType 0x88B5), wire format version 4.
-- docs/wire-format.md describes every field. Use:
--   tshark -X lua_script:tools/wireshark/seqbond.lua -r capture.pcapng -V
-- or copy it to ~/.local/lib/wireshark/plugins/.
--
-- A frame seqbond's receiver would refuse is flagged with an expert item named after the
-- datapath counter it lands in (seqbond.truncated -> rx_err_truncated, ...), so a display
-- filter such as `seqbond.bad_flags` finds the frames behind a counter. Whatever the bytes,
-- the dissector raises no Lua error: every length is checked before a field is read, and a
-- malformed inner frame is left to Wireshark's own "Malformed Packet" marking.
--
-- Cluster key (flag AUTH): a DATA frame's 24-byte authentication header (length, key id,
-- key generation, the high half of the packet number, 16-byte tag; the full 64-bit packet
-- number is shown as seqbond.auth.pn) and a hello's 44-byte trailer (key id, key generation,
-- crypto sequence, session nonce, 16-byte tag) are shown, not checked: that takes the key
-- (and both session nonces), which a capture should not need. seqbond.auth.gen is the
-- sender's key generation in a hello, and in a DATA frame the receiver's one its direction
-- key was made for: a DATA frame to host H whose gen is not that of H's latest hellos (or,
-- for 2 s after they moved on, the one before) is refused (rx_auth_unknown_key).
-- `seqbond.flags.auth == 0` finds the frames a host with a key refuses (rx_auth_no_tag).
-- Bytes after a DATA frame's length are Ethernet's padding: shown apart, never handed to
-- the inner dissectors.
--
-- Frames of another version are not decoded past their version: the versions do not
-- interwork (a receiver counts them in rx_err_bad_version), and their layout is not this
-- one. They are shown as "version N (this dissector decodes version 4)".

local sb = Proto("seqbond", "seqbond link aggregation shim")

local types = { [0] = "DATA", [2] = "HELLO" }
local ETH_HLEN = 14 -- the sender's outer Ethernet header, which a DATA length counts
local SHIM_LEN = 8
local HELLO_LEN = 40
local ENTRY_LEN = 28
local BRIEF_LEN = 8
local MAX_PATH = 15 -- path id = the sender's port index, 0..15
local VERSION = 4
-- DATA authentication header, right after the shim: length (2), key id, key generation,
-- PN high (4), tag (16). Offsets from the shim's first byte (frame offset 14).
local DATA_AUTH_LEN = 24
local DATA_TAG_OFF = SHIM_LEN + 8 -- frame offset 30
local AUTH_LEN = 44 -- hello trailer: key id, generation, 2 reserved, sequence (8), nonce (16),
-- tag (16)
local AUTH_NONCE_OFF = 12
local AUTH_TAG_OFF = 28

local f = sb.fields
f.version = ProtoField.uint8("seqbond.version", "Version", base.DEC, nil, 0xf0)
f.type = ProtoField.uint8("seqbond.type", "Type", base.DEC, types, 0x0f)
f.flags = ProtoField.uint8("seqbond.flags", "Flags", base.HEX)
f.elided = ProtoField.bool("seqbond.flags.elided", "Inner addresses elided", 8, nil, 0x01)
f.auth = ProtoField.bool("seqbond.flags.auth", "Authenticated (cluster key tag)", 8, nil, 0x02)
f.path = ProtoField.uint8("seqbond.path", "Path (sender port)", base.DEC)
f.path_seq = ProtoField.uint8("seqbond.path_seq", "Path sequence number", base.DEC)
f.seq = ProtoField.uint32("seqbond.seq", "Sequence number", base.DEC)
f.undecoded = ProtoField.bytes("seqbond.undecoded", "Not decoded (another version)")
-- DATA authentication header; key id and generation shared with the hello trailer's.
f.auth_len = ProtoField.uint16("seqbond.auth.len", "Length (tagged, from the frame's first byte)",
	base.DEC)
f.key_id = ProtoField.uint8("seqbond.auth.key_id", "Key id", base.HEX)
f.gen = ProtoField.uint8("seqbond.auth.gen", "Key generation", base.DEC)
f.pn_hi = ProtoField.uint32("seqbond.auth.pn_hi", "Packet number, high half", base.DEC)
f.pn = ProtoField.uint64("seqbond.auth.pn", "Packet number (PN high << 32 | sequence number)",
	base.DEC)
f.data_tag = ProtoField.bytes("seqbond.tag", "Tag (AES-256-GCM, direction key)")
f.padding = ProtoField.bytes("seqbond.padding", "Ethernet padding (after the length, not tagged)")
-- Hello trailer.
f.trailer_reserved = ProtoField.uint16("seqbond.auth.trailer_reserved", "Reserved", base.HEX)
f.auth_seq = ProtoField.uint64("seqbond.auth.seq", "Crypto sequence (us)", base.DEC)
f.nonce = ProtoField.bytes("seqbond.auth.nonce", "Session nonce")
f.hello_tag = ProtoField.bytes("seqbond.auth.tag", "Tag (keyed BLAKE2b)")
f.inner_type = ProtoField.uint16("seqbond.inner_type", "Inner EtherType", base.HEX)
f.host_id = ProtoField.uint32("seqbond.hello.host_id", "Host id", base.DEC)
f.instance = ProtoField.uint32("seqbond.hello.instance", "Instance", base.HEX)
f.agg_mac = ProtoField.ether("seqbond.hello.agg_mac", "Aggregate MAC")
f.port_index = ProtoField.uint8("seqbond.hello.port", "Port index", base.DEC)
f.n_ports = ProtoField.uint8("seqbond.hello.n_ports", "Ports", base.DEC)
f.rate = ProtoField.uint32("seqbond.hello.rate_kbps", "Rate (kbit/s)", base.DEC)
f.interval = ProtoField.uint16("seqbond.hello.interval_ms", "Hello interval (ms)", base.DEC)
f.mtu = ProtoField.uint16("seqbond.hello.mtu", "MTU", base.DEC)
f.mult = ProtoField.uint8("seqbond.hello.multiplier", "Detect multiplier", base.DEC)
f.hflags = ProtoField.uint8("seqbond.hello.flags", "Hello flags", base.HEX)
f.probe = ProtoField.bool("seqbond.hello.flags.probe", "Full-size probe", 8, nil, 0x01)
f.partial = ProtoField.bool("seqbond.hello.flags.partial", "Partial list", 8, nil, 0x02)
f.unicast = ProtoField.bool("seqbond.hello.flags.unicast", "Unicast (numbered per path)", 8, nil, 0x04)
f.brief = ProtoField.bool("seqbond.hello.flags.brief", "Brief entries (no measurements)", 8, nil, 0x08)
f.probe_ms = ProtoField.uint16("seqbond.hello.probe_ms", "Probe interval (ms)", base.DEC)
f.hello_seq = ProtoField.uint32("seqbond.hello.seq", "Hello sequence number", base.DEC)
f.tx_time = ProtoField.uint32("seqbond.hello.tx_time_us", "Send time (us)", base.DEC)
f.n_entries = ProtoField.uint16("seqbond.hello.n_entries", "Entries", base.DEC)
f.e_host = ProtoField.uint32("seqbond.entry.host_id", "Heard host", base.DEC)
f.e_port = ProtoField.uint8("seqbond.entry.port", "Heard port", base.DEC)
f.e_flags = ProtoField.uint8("seqbond.entry.flags", "Entry flags", base.HEX)
f.e_mtu_ok = ProtoField.bool("seqbond.entry.mtu_ok", "Its probes arrive", 8, nil, 0x01)
f.e_tx = ProtoField.bool("seqbond.entry.tx", "Sender puts data on this path", 8, nil, 0x02)
f.e_key = ProtoField.bool("seqbond.entry.key", "Key id of its last hello taken", 8, nil, 0x04)
f.e_key_id = ProtoField.uint8("seqbond.entry.key_id",
	"Key id of the last authenticated hello taken from it", base.HEX)
f.e_rx = ProtoField.uint32("seqbond.entry.rx_frames", "Frames received", base.DEC)
f.e_lost = ProtoField.uint32("seqbond.entry.lost_frames", "Frames lost", base.DEC)
f.e_rate = ProtoField.uint32("seqbond.entry.rate_kbps", "Delivered rate (kbit/s)", base.DEC)
f.e_owd_min = ProtoField.uint32("seqbond.entry.owd_min_us", "Min one-way delay (us)",
	base.DEC)
f.e_owd = ProtoField.uint32("seqbond.entry.owd_us", "One-way delay (us)", base.DEC)

local function malformed(abbrev, text)
	return ProtoExpert.new("seqbond." .. abbrev, text, expert.group.MALFORMED,
		expert.severity.ERROR)
end
local ex = {
	truncated = malformed("truncated", "Shorter than its type needs (rx_err_truncated)"),
	bad_version = malformed("bad_version", "Another wire version (rx_err_bad_version)"),
	bad_type = malformed("bad_type", "Unknown frame type (rx_err_bad_type)"),
	bad_flags = malformed("bad_flags", "Flags this version does not define (rx_err_bad_flags)"),
	bad_path = ProtoExpert.new("seqbond.bad_path", "Path id above 15 (no such sender port)",
		expert.group.MALFORMED, expert.severity.WARN),
	bad_hello = malformed("bad_hello", "Hello no seqbond host sends (rx_err_bad_hello)"),
	bad_entry = ProtoExpert.new("seqbond.bad_entry",
		"Entry the receiver skips (rejects bad_entry)", expert.group.MALFORMED,
		expert.severity.WARN),
}
sb.experts = { ex.truncated, ex.bad_version, ex.bad_type, ex.bad_flags, ex.bad_path,
	ex.bad_hello, ex.bad_entry }

local ethertype_table = DissectorTable.get("ethertype")
local eth_dissector = Dissector.get("eth_withoutfcs")

-- Hand the inner frame to Wireshark's dissectors. They throw on malformed content (after
-- marking the frame "Malformed Packet" themselves); that must not become a Lua error.
local function inner(fn, ...)
	pcall(fn, ...)
end

-- Why sb_wire_hello_decode() refuses this fixed part, or nil.
local function hello_fault(buf)
	local host, port, n = buf(8, 4):uint(), buf(22, 1):uint(), buf(23, 1):uint()
	if host == 0 then
		return "host id 0"
	elseif n == 0 then
		return "no ports"
	elseif port >= n then
		return string.format("port index %d of %d ports", port, n)
	elseif buf(28, 2):uint() == 0 then
		return "hello interval 0"
	elseif buf(32, 1):uint() == 0 then
		return "detect multiplier 0"
	elseif bit.band(buf(16, 1):uint(), 0x01) ~= 0 then
		return "group aggregate MAC"
	elseif buf(30, 2):uint() < 68 then
		return string.format("MTU %d below 68", buf(30, 2):uint())
	elseif bit.band(buf(33, 1):uint(), 0xf0) ~= 0 then
		return string.format("hello flags 0x%02x", buf(33, 1):uint())
	end
	return nil
end

-- The authentication trailer at offset @o of the shim: the rules of
-- sb_wire_hello_auth_get(). Returns the fault, or nil.
local function hello_auth(buf, t, o)
	local len = buf:len()
	if len - o < AUTH_LEN then
		if len > o then
			t:add(buf(o), "Authentication trailer (truncated)")
		end
		t:add_proto_expert_info(ex.truncated, string.format(
			"Authentication trailer of %d bytes, %d needed", math.max(len - o, 0), AUTH_LEN))
		return "trailer truncated"
	end
	local a = t:add(buf(o, AUTH_LEN), "Authentication trailer")
	a:add(f.key_id, buf(o, 1))
	a:add(f.gen, buf(o + 1, 1)):append_text(" (the sender's)")
	a:add(f.trailer_reserved, buf(o + 2, 2))
	a:add(f.auth_seq, buf(o + 4, 8))
	a:add(f.nonce, buf(o + AUTH_NONCE_OFF, 16))
	a:add(f.hello_tag, buf(o + AUTH_TAG_OFF, 16))
	if buf(o + 2, 2):uint() ~= 0 then
		a:add_proto_expert_info(ex.bad_hello, "Bad hello: trailer's reserved bytes not 0")
		return "trailer reserved bytes"
	elseif buf(o + 4, 8):uint64() == UInt64(0) then
		a:add_proto_expert_info(ex.bad_hello, "Bad hello: crypto sequence 0")
		return "crypto sequence 0"
	end
	return nil
end

-- The hello body after the shim: the rules of sb_wire_hello_decode(),
-- sb_wire_hello_auth_get() and sb_wire_hello_entry_get().
local function hello(buf, pinfo, t)
	local len = buf:len()
	if len < SHIM_LEN + HELLO_LEN then
		if len > SHIM_LEN then
			t:add(buf(SHIM_LEN), "Hello (truncated)")
		end
		t:add_proto_expert_info(ex.truncated, string.format(
			"Hello body of %d bytes, %d needed", len - SHIM_LEN, HELLO_LEN))
		pinfo.cols.info = "seqbond HELLO (truncated)"
		return len
	end
	local h = t:add(buf(SHIM_LEN, HELLO_LEN), "Hello")
	h:add(f.host_id, buf(8, 4))
	h:add(f.instance, buf(12, 4))
	h:add(f.agg_mac, buf(16, 6))
	h:add(f.port_index, buf(22, 1))
	h:add(f.n_ports, buf(23, 1))
	h:add(f.rate, buf(24, 4))
	h:add(f.interval, buf(28, 2))
	h:add(f.mtu, buf(30, 2))
	h:add(f.mult, buf(32, 1))
	local hf = h:add(f.hflags, buf(33, 1))
	hf:add(f.probe, buf(33, 1))
	hf:add(f.partial, buf(33, 1))
	hf:add(f.unicast, buf(33, 1))
	hf:add(f.brief, buf(33, 1))
	h:add(f.probe_ms, buf(34, 2))
	h:add(f.hello_seq, buf(36, 4))
	h:add(f.tx_time, buf(40, 4))
	h:add(f.n_entries, buf(44, 2))
	local why = hello_fault(buf)
	local n = buf(44, 2):uint()
	-- A brief hello's entries are their first 8 bytes alone.
	local brief = bit.band(buf(33, 1):uint(), 0x08) ~= 0
	local elen = brief and BRIEF_LEN or ENTRY_LEN
	local fit = math.floor((len - SHIM_LEN - HELLO_LEN) / elen)
	local authed = bit.band(buf(1, 1):uint(), 0x02) ~= 0
	local afault = nil
	if why ~= nil then
		h:add_proto_expert_info(ex.bad_hello, "Bad hello: " .. why)
	elseif n > fit then
		h:add_proto_expert_info(ex.truncated,
			string.format("%d entries announced, %d present", n, fit))
	elseif authed then
		afault = hello_auth(buf, t, SHIM_LEN + HELLO_LEN + n * elen)
	end
	-- The receiver reads the entries only of a hello it accepts whole.
	local checked = why == nil and n <= fit and afault == nil
	n = math.min(n, fit)
	for i = 0, n - 1 do
		local o = SHIM_LEN + HELLO_LEN + i * elen
		local eflags = buf(o + 5, 1):uint()
		local e = h:add(buf(o, elen), string.format("Heard: host %d port %d",
			buf(o, 4):uint(), buf(o + 4, 1):uint()))
		e:add(f.e_host, buf(o, 4))
		e:add(f.e_port, buf(o + 4, 1))
		local ef = e:add(f.e_flags, buf(o + 5, 1))
		ef:add(f.e_mtu_ok, buf(o + 5, 1))
		ef:add(f.e_tx, buf(o + 5, 1))
		ef:add(f.e_key, buf(o + 5, 1))
		-- Byte 6 means something only with the KEY flag; byte 7 is reserved.
		if bit.band(eflags, 0x04) ~= 0 then
			e:add(f.e_key_id, buf(o + 6, 1))
		end
		if not brief then
			e:add(f.e_rx, buf(o + 8, 4))
			e:add(f.e_lost, buf(o + 12, 4))
			e:add(f.e_rate, buf(o + 16, 4))
			e:add(f.e_owd_min, buf(o + 20, 4))
			e:add(f.e_owd, buf(o + 24, 4))
		end
		if checked and (buf(o, 4):uint() == 0 or bit.band(eflags, 0xf8) ~= 0) then
			e:add_proto_expert_info(ex.bad_entry)
		end
	end
	local probe = bit.band(buf(33, 1):uint(), 0x01) ~= 0
	why = why or afault
	pinfo.cols.info = string.format("seqbond HELLO%s host %d port %d/%d, %d heard%s%s",
		probe and " (probe)" or "", buf(8, 4):uint(), buf(22, 1):uint(),
		buf(23, 1):uint(), n, authed and ", authenticated" or "",
		why and (" (" .. why .. ")") or "")
	return len
end

-- A DATA frame's authentication header: the rules of sb_wire_data_auth_get() (the length
-- against the frame as received, padding included; any key id and generation decode).
-- Returns the end of the tagged bytes (offset from the shim), or nil and the fault.
local function data_auth(buf, t, elided)
	local len = buf:len()
	local a = t:add(buf(SHIM_LEN, DATA_AUTH_LEN), "Authentication header")
	local alen = buf(SHIM_LEN, 2):uint()
	local pn_hi = buf(SHIM_LEN + 4, 4):uint()
	a:add(f.auth_len, buf(SHIM_LEN, 2))
	a:add(f.key_id, buf(SHIM_LEN + 2, 1))
	a:add(f.gen, buf(SHIM_LEN + 3, 1)):append_text(" (the receiver's, of the direction key)")
	a:add(f.pn_hi, buf(SHIM_LEN + 4, 4))
	a:add(f.pn, buf(SHIM_LEN + 4, 4), UInt64(buf(4, 4):uint(), pn_hi)):set_generated()
	a:add(f.data_tag, buf(DATA_TAG_OFF, 16))
	local min = ETH_HLEN + SHIM_LEN + DATA_AUTH_LEN + (elided and 2 or 14)
	if alen < min or alen > ETH_HLEN + len then
		a:add_proto_expert_info(ex.truncated, string.format(
			"Length %d outside %d..%d (the shortest frame, the frame as received)", alen,
			min, ETH_HLEN + len))
		return nil, "length"
	end
	return alen - ETH_HLEN, nil
end

function sb.dissector(buf, pinfo, tree)
	local len = buf:len()
	pinfo.cols.protocol = "seqbond"
	if len < SHIM_LEN then
		local t = tree:add(sb, buf(0))
		t:add_proto_expert_info(ex.truncated, string.format(
			"Shim of %d bytes, %d needed", len, SHIM_LEN))
		pinfo.cols.info = string.format("seqbond (truncated, %d bytes)", len)
		return len
	end
	local version = bit.rshift(buf(0, 1):uint(), 4)
	-- The receiver's order of checks (sb_wire_parse): version, type, flags, then length.
	-- Another version's layout is not this one: nothing past its version is decoded.
	if version ~= VERSION then
		local t = tree:add(sb, buf(0))
		t:add(f.version, buf(0, 1))
		t:add(f.undecoded, buf(1))
		local what = string.format("version %d (this dissector decodes version %d)",
			version, VERSION)
		t:add_proto_expert_info(ex.bad_version, "Wire " .. what)
		t:append_text(", " .. what)
		pinfo.cols.info = "seqbond " .. what
		return len
	end
	local ftype = bit.band(buf(0, 1):uint(), 0x0f)
	local flags = buf(1, 1):uint()
	local path = buf(2, 1):uint()
	local t = tree:add(sb, buf(0, SHIM_LEN))
	t:add(f.version, buf(0, 1))
	t:add(f.type, buf(0, 1))
	local ft = t:add(f.flags, buf(1, 1))
	ft:add(f.elided, buf(1, 1))
	ft:add(f.auth, buf(1, 1))
	local pt = t:add(f.path, buf(2, 1))
	t:add(f.path_seq, buf(3, 1))
	t:add(f.seq, buf(4, 4))
	if path > MAX_PATH then
		pt:add_proto_expert_info(ex.bad_path)
	end
	local name = types[ftype] or ("type " .. ftype)
	if types[ftype] == nil then
		t:add_proto_expert_info(ex.bad_type, string.format("Type %d", ftype))
		pinfo.cols.info = string.format("seqbond unknown type %d", ftype)
		return len
	end
	if bit.band(flags, 0xfc) ~= 0 or (ftype == 2 and bit.band(flags, 0xfd) ~= 0) then
		ft:add_proto_expert_info(ex.bad_flags, string.format("Flags 0x%02x", flags))
		pinfo.cols.info = string.format("seqbond %s with bad flags 0x%02x", name, flags)
		return len
	end
	if ftype == 2 then
		return hello(buf, pinfo, t)
	end
	local elided = bit.band(flags, 0x01) ~= 0
	local authed = bit.band(flags, 0x02) ~= 0
	local off = SHIM_LEN + (authed and DATA_AUTH_LEN or 0) -- the inner EtherType or frame
	local need = off + (elided and 2 or 14)
	pinfo.cols.info = string.format("seqbond %s path %d seq %d", name, path, buf(4, 4):uint())
	if len < need then
		t:add_proto_expert_info(ex.truncated, string.format(
			"%s frame of %d bytes after the outer header, %d needed", name, len, need))
		pinfo.cols.info:append(" (truncated)")
		return len
	end
	local stop = len -- end of what the sender sent (the tagged bytes with a key)
	local summary = string.format("[seqbond %s path %d seq %d] ", name, path, buf(4, 4):uint())
	if authed then
		local why
		stop, why = data_auth(buf, t, elided)
		if stop == nil then
			t:set_len(off)
			pinfo.cols.info:append(string.format(" (authentication header: %s)", why))
			return len
		end
		summary = string.format("[seqbond %s path %d seq %d pn %s] ", name, path,
			buf(4, 4):uint(), tostring(UInt64(buf(4, 4):uint(), buf(SHIM_LEN + 4, 4):uint())))
	end
	-- The inner frame stops where the sender's bytes do: padding is not handed on.
	pinfo.cols.info = ""
	if elided then
		local et = buf(off, 2):uint()
		t:add(f.inner_type, buf(off, 2))
		t:set_len(off + 2)
		if stop > off + 2 then
			inner(function() ethertype_table:try(et, buf(off + 2, stop - off - 2):tvb(),
				pinfo, tree) end)
		end
	else
		t:set_len(off)
		if eth_dissector ~= nil then
			inner(function() eth_dissector:call(buf(off, stop - off):tvb(), pinfo, tree) end)
		end
	end
	if stop < len then
		t:add(f.padding, buf(stop))
	end
	-- Keep seqbond's summary in the Info column over the inner protocol's, or alone.
	if tostring(pinfo.cols.info) == "" then
		pinfo.cols.info = summary:sub(2, -3)
	else
		pinfo.cols.info:prepend(summary)
	end
	return len
end

ethertype_table:add(0x88b5, sb)
