-- Wireshark dissector for the seqbond shim (EtherType 0x88B5), wire format version 2.
-- docs/wire-format.md describes every field. Use:
--   tshark -X lua_script:tools/wireshark/seqbond.lua -r capture.pcapng -V
-- or copy it to ~/.local/lib/wireshark/plugins/.

local sb = Proto("seqbond", "seqbond link aggregation shim")

local types = { [0] = "DATA", [2] = "HELLO" }
local HELLO_LEN = 40
local ENTRY_LEN = 28

local f = sb.fields
f.version = ProtoField.uint8("seqbond.version", "Version", base.DEC, nil, 0xf0)
f.type = ProtoField.uint8("seqbond.type", "Type", base.DEC, types, 0x0f)
f.flags = ProtoField.uint8("seqbond.flags", "Flags", base.HEX)
f.elided = ProtoField.bool("seqbond.flags.elided", "Inner addresses elided", 8, nil, 0x01)
f.path = ProtoField.uint8("seqbond.path", "Path (sender port)", base.DEC)
f.path_seq = ProtoField.uint8("seqbond.path_seq", "Path sequence number", base.DEC)
f.seq = ProtoField.uint32("seqbond.seq", "Sequence number", base.DEC)
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
f.probe_ms = ProtoField.uint16("seqbond.hello.probe_ms", "Probe interval (ms)", base.DEC)
f.hello_seq = ProtoField.uint32("seqbond.hello.seq", "Hello sequence number", base.DEC)
f.tx_time = ProtoField.uint32("seqbond.hello.tx_time_us", "Send time (us)", base.DEC)
f.n_entries = ProtoField.uint16("seqbond.hello.n_entries", "Entries", base.DEC)
f.e_host = ProtoField.uint32("seqbond.entry.host_id", "Heard host", base.DEC)
f.e_port = ProtoField.uint8("seqbond.entry.port", "Heard port", base.DEC)
f.e_flags = ProtoField.uint8("seqbond.entry.flags", "Entry flags", base.HEX)
f.e_mtu_ok = ProtoField.bool("seqbond.entry.mtu_ok", "Its probes arrive", 8, nil, 0x01)
f.e_tx = ProtoField.bool("seqbond.entry.tx", "Sender puts data on this path", 8, nil, 0x02)
f.e_rx = ProtoField.uint32("seqbond.entry.rx_frames", "Frames received", base.DEC)
f.e_lost = ProtoField.uint32("seqbond.entry.lost_frames", "Frames lost", base.DEC)
f.e_rate = ProtoField.uint32("seqbond.entry.rate_kbps", "Delivered rate (kbit/s)", base.DEC)
f.e_owd_min = ProtoField.uint32("seqbond.entry.owd_min_us", "Min one-way delay (us)",
	base.DEC)
f.e_owd = ProtoField.uint32("seqbond.entry.owd_us", "One-way delay (us)", base.DEC)

local ethertype_table = DissectorTable.get("ethertype")
local eth_dissector = Dissector.get("eth_withoutfcs")

local function hello(buf, pinfo, t)
	local len = buf:len()
	if len < 8 + HELLO_LEN then
		pinfo.cols.info = "seqbond HELLO (truncated)"
		return len
	end
	local h = t:add(buf(8, HELLO_LEN), "Hello")
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
	h:add(f.probe_ms, buf(34, 2))
	h:add(f.hello_seq, buf(36, 4))
	h:add(f.tx_time, buf(40, 4))
	h:add(f.n_entries, buf(44, 2))
	local n = buf(44, 2):uint()
	local fit = math.floor((len - 8 - HELLO_LEN) / ENTRY_LEN)
	if n > fit then
		h:add_expert_info(PI_MALFORMED, PI_ERROR,
			string.format("%d entries announced, %d present", n, fit))
		n = fit
	end
	for i = 0, n - 1 do
		local o = 8 + HELLO_LEN + i * ENTRY_LEN
		local e = h:add(buf(o, ENTRY_LEN), string.format("Heard: host %d port %d",
			buf(o, 4):uint(), buf(o + 4, 1):uint()))
		e:add(f.e_host, buf(o, 4))
		e:add(f.e_port, buf(o + 4, 1))
		local ef = e:add(f.e_flags, buf(o + 5, 1))
		ef:add(f.e_mtu_ok, buf(o + 5, 1))
		ef:add(f.e_tx, buf(o + 5, 1))
		e:add(f.e_rx, buf(o + 8, 4))
		e:add(f.e_lost, buf(o + 12, 4))
		e:add(f.e_rate, buf(o + 16, 4))
		e:add(f.e_owd_min, buf(o + 20, 4))
		e:add(f.e_owd, buf(o + 24, 4))
	end
	local probe = bit.band(buf(33, 1):uint(), 0x01) ~= 0
	pinfo.cols.info = string.format("seqbond HELLO%s host %d port %d/%d, %d heard",
		probe and " (probe)" or "", buf(8, 4):uint(), buf(22, 1):uint(),
		buf(23, 1):uint(), n)
	return len
end

function sb.dissector(buf, pinfo, tree)
	if buf:len() < 8 then
		return 0
	end
	local version = bit.rshift(buf(0, 1):uint(), 4)
	local ftype = bit.band(buf(0, 1):uint(), 0x0f)
	local flags = buf(1, 1):uint()
	pinfo.cols.protocol = "seqbond"
	local t = tree:add(sb, buf(0, 8))
	t:add(f.version, buf(0, 1))
	t:add(f.type, buf(0, 1))
	local ft = t:add(f.flags, buf(1, 1))
	ft:add(f.elided, buf(1, 1))
	t:add(f.path, buf(2, 1))
	t:add(f.path_seq, buf(3, 1))
	t:add(f.seq, buf(4, 4))
	local name = types[ftype] or ("type " .. ftype)
	if version ~= 2 then
		pinfo.cols.info = string.format("seqbond unknown version %d", version)
		return 8
	end
	if ftype == 2 then
		return hello(buf, pinfo, t)
	end
	if types[ftype] == nil then
		pinfo.cols.info = string.format("seqbond unknown type %d", ftype)
		return 8
	end
	pinfo.cols.info = string.format("seqbond %s path %d seq %d", name, buf(2, 1):uint(),
		buf(4, 4):uint())
	if bit.band(flags, 0x01) ~= 0 then
		if buf:len() < 10 then
			return buf:len()
		end
		local et = buf(8, 2):uint()
		t:add(f.inner_type, buf(8, 2))
		t:set_len(10)
		if buf:len() > 10 then
			ethertype_table:try(et, buf(10):tvb(), pinfo, tree)
		end
	elseif buf:len() > 8 and eth_dissector ~= nil then
		eth_dissector:call(buf(8):tvb(), pinfo, tree)
	end
	-- Keep seqbond's summary in the Info column over the inner protocol's.
	pinfo.cols.info:prepend(string.format("[seqbond %s path %d seq %d] ", name,
		buf(2, 1):uint(), buf(4, 4):uint()))
	return buf:len()
end

ethertype_table:add(0x88b5, sb)
