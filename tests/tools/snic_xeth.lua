-- snic's selective-transport extension header (include/snic/snic_opcodes.h,
-- struct snic_xeth; docs/hardware-interface.md): shown on RoCEv2 packets
-- whose BTH TVer is SNIC_BTH_TVER_XPORT (2). Fields are little-endian.
-- Load with: wireshark -X lua_script:tests/tools/snic_xeth.lua (or tshark)
local p = Proto("snic_xeth", "snic selective-transport extension")
local F = {
  flags = ProtoField.uint8("snic_xeth.flags", "Flags", base.HEX),
  place = ProtoField.bool("snic_xeth.place", "PLACE (rkey, va)", 8, nil, 0x01),
  msg_f = ProtoField.bool("snic_xeth.msgf", "MSG (msg, offset)", 8, nil, 0x02),
  sack_f = ProtoField.bool("snic_xeth.sackf", "SACK block", 8, nil, 0x04),
  nack_f = ProtoField.bool("snic_xeth.nackf", "NACK", 8, nil, 0x08),
  pull_f = ProtoField.bool("snic_xeth.pullf", "PULL", 8, nil, 0x10),
  trim_f = ProtoField.bool("snic_xeth.trimf", "TRIMMED", 8, nil, 0x20),
  ece_f = ProtoField.bool("snic_xeth.ecef", "ECE (CE count in offset)", 8, nil, 0x40),
  resp_f = ProtoField.bool("snic_xeth.respf", "RESP (READ request PSN, PSN_OFFSET)", 8, nil, 0x80),
  sq_index = ProtoField.uint16("snic_xeth.sq_index", "READ's SQ index"),
  rkey = ProtoField.uint32("snic_xeth.rkey", "R_Key", base.HEX),
  va = ProtoField.uint64("snic_xeth.va", "Target address / READ data's source", base.HEX),
  msg = ProtoField.uint32("snic_xeth.msg", "Message number / pull counter / request PSN"),
  offset = ProtoField.uint32("snic_xeth.offset", "Offset in message / CE count / PSN_OFFSET"),
  sack_lo = ProtoField.uint32("snic_xeth.sack_lo", "SACK first PSN / NACK PSN"),
  sack_hi = ProtoField.uint32("snic_xeth.sack_hi", "SACK end PSN"),
}
p.fields = { F.flags, F.place, F.msg_f, F.sack_f, F.nack_f, F.pull_f, F.trim_f, F.ece_f, F.resp_f,
             F.sq_index, F.rkey, F.va, F.msg, F.offset, F.sack_lo, F.sack_hi }
local fi_ip, fi_ip6, fi_dp = Field.new("ip"), Field.new("ipv6"), Field.new("udp.dstport")
function p.dissector(tvb, pinfo, tree)
  local dp = fi_dp(); if not dp or dp.value ~= 4791 then return end
  local i6, i4 = fi_ip6(), fi_ip(); local ip = i6 or i4; if not ip then return end
  local bth = ip.offset + (i6 and 40 or 20) + 8          -- after IP and UDP
  if bth + 12 + 32 > tvb:len() then return end
  if bit32.band(tvb(bth + 1, 1):uint(), 0x0f) ~= 2 then return end
  local x = bth + 12
  local t = tree:add(p, tvb(x, 32))
  local fl = t:add(F.flags, tvb(x, 1))
  for _, f in ipairs({ F.place, F.msg_f, F.sack_f, F.nack_f, F.pull_f, F.trim_f, F.ece_f,
                       F.resp_f }) do
    fl:add(f, tvb(x, 1))
  end
  t:add_le(F.sq_index, tvb(x + 2, 2))
  t:add_le(F.rkey, tvb(x + 4, 4))
  t:add_le(F.va, tvb(x + 8, 8))
  t:add_le(F.msg, tvb(x + 16, 4))
  t:add_le(F.offset, tvb(x + 20, 4))
  t:add_le(F.sack_lo, tvb(x + 24, 4))
  t:add_le(F.sack_hi, tvb(x + 28, 4))
end
register_postdissector(p)
