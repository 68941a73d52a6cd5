-- The connectionless transport's header (include/snic/snic_cl.h, struct
-- snic_cleth; docs/hardware-interface.md section 7.10): shown on RoCEv2
-- packets whose BTH TVer is SNIC_BTH_TVER_CL (3), op-codes 0xc0-0xc3.
-- Fields are little-endian.
-- Load with: wireshark -X lua_script:tests/tools/snic_cl.lua (or tshark)
local p = Proto("snic_cl", "snic connectionless transport")
local ops = { [0xc0] = "REGISTER", [0xc1] = "WRITE", [0xc2] = "ACK", [0xc3] = "NOTIFY" }
local syns = { [0] = "ACK", [1] = "NACK NOT_READY", [2] = "NACK REMOTE_ACCESS" }
local F = {
  op = ProtoField.uint8("snic_cl.op", "Operation", base.HEX, ops),
  flags = ProtoField.uint8("snic_cl.flags", "Flags", base.HEX),
  reg = ProtoField.bool("snic_cl.registered", "REGISTERED", 8, nil, 0x01),
  syndrome = ProtoField.uint8("snic_cl.syndrome", "Syndrome", base.DEC, syns),
  retries = ProtoField.uint8("snic_cl.retries", "Sender's retries"),
  src_ep = ProtoField.uint32("snic_cl.src_ep", "Source endpoint", base.HEX),
  op_id = ProtoField.uint32("snic_cl.op_id", "Operation id", base.HEX),
  index = ProtoField.uint32("snic_cl.index", "Packet index"),
  va = ProtoField.uint64("snic_cl.va", "Address", base.HEX),
  rkey = ProtoField.uint32("snic_cl.rkey", "R_Key", base.HEX),
  len = ProtoField.uint32("snic_cl.len", "Operation length"),
  npkts = ProtoField.uint32("snic_cl.npkts", "Operation packets"),
  tag = ProtoField.uint32("snic_cl.tag", "Tag", base.HEX),
  timeout = ProtoField.uint32("snic_cl.timeout_us", "Sender's timeout (us)"),
}
p.fields = { F.op, F.flags, F.reg, F.syndrome, F.retries, F.src_ep, F.op_id, F.index, F.va,
             F.rkey, F.len, F.npkts, F.tag, F.timeout }
local fi_ip, fi_ip6, fi_dp = Field.new("ip"), Field.new("ipv6"), Field.new("udp.dstport")
function p.dissector(tvb, pinfo, tree)
  local dp = fi_dp(); if not dp or dp.value ~= 4791 then return end
  local i6, i4 = fi_ip6(), fi_ip(); local ip = i6 or i4; if not ip then return end
  local bth = ip.offset + (i6 and 40 or 20) + 8          -- after IP and UDP
  if bth + 12 + 48 > tvb:len() then return end
  if bit32.band(tvb(bth + 1, 1):uint(), 0x0f) ~= 3 then return end
  local x = bth + 12
  local t = tree:add(p, tvb(x, 48))
  t:add(F.op, tvb(bth, 1))
  local fl = t:add(F.flags, tvb(x, 1))
  fl:add(F.reg, tvb(x, 1))
  t:add(F.syndrome, tvb(x + 1, 1))
  t:add(F.retries, tvb(x + 2, 1))
  t:add_le(F.src_ep, tvb(x + 4, 4))
  t:add_le(F.op_id, tvb(x + 8, 4))
  t:add_le(F.index, tvb(x + 12, 4))
  t:add_le(F.va, tvb(x + 16, 8))
  t:add_le(F.rkey, tvb(x + 24, 4))
  t:add_le(F.len, tvb(x + 28, 4))
  t:add_le(F.npkts, tvb(x + 32, 4))
  t:add_le(F.tag, tvb(x + 36, 4))
  t:add_le(F.timeout, tvb(x + 40, 4))
  pinfo.cols.info:set("CL " .. (ops[tvb(bth, 1):uint()] or "?"))
end
register_postdissector(p)
