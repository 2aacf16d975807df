-- Wireshark dissector for the seqbond shim (EtherType 0x88B5), wire format version 1.
-- docs/wire-format.md describes every field. Use:
--   tshark -X lua_script:tools/wireshark/seqbond.lua -r capture.pcapng -V
-- or copy it to ~/.local/lib/wireshark/plugins/.

local sb = Proto("seqbond", "seqbond link aggregation shim")

local types = { [0] = "DATA", [1] = "UNSEQ", [2] = "HELLO" }

local f = sb.fields
f.version = ProtoField.uint8("seqbond.version", "Version", base.DEC, nil, 0xf0)
f.type = ProtoField.uint8("seqbond.type", "Type", base.DEC, types, 0x0f)
f.flags = ProtoField.uint8("seqbond.flags", "Flags", base.HEX)
f.elided = ProtoField.bool("seqbond.flags.elided", "Inner addresses elided", 8, nil, 0x01)
f.path = ProtoField.uint8("seqbond.path", "Path (sender port)", base.DEC)
f.reserved = ProtoField.uint8("seqbond.reserved", "Reserved", base.HEX)
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

local ethertype_table = DissectorTable.get("ethertype")
local eth_dissector = Dissector.get("eth_withoutfcs")

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
	t:add(f.reserved, buf(3, 1))
	t:add(f.seq, buf(4, 4))
	local name = types[ftype] or ("type " .. ftype)
	if version ~= 1 then
		pinfo.cols.info = string.format("seqbond unknown version %d", version)
		return 8
	end
	if ftype == 2 then
		if buf:len() < 8 + 28 then
			pinfo.cols.info = "seqbond HELLO (truncated)"
			return buf:len()
		end
		local h = t:add(buf(8, 28), "Hello")
		h:add(f.host_id, buf(8, 4))
		h:add(f.instance, buf(12, 4))
		h:add(f.agg_mac, buf(16, 6))
		h:add(f.port_index, buf(22, 1))
		h:add(f.n_ports, buf(23, 1))
		h:add(f.rate, buf(24, 4))
		h:add(f.interval, buf(28, 2))
		h:add(f.mtu, buf(30, 2))
		pinfo.cols.info = string.format("seqbond HELLO host %d port %d/%d",
			buf(8, 4):uint(), buf(22, 1):uint(), buf(23, 1):uint())
		return 8 + 28
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
