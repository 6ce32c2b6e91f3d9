#!/bin/bash
# SPDX-License-Identifier: MIT
# Images made by the real mkfs tools: "unionroot probe" must report the TYPE,
# UUID and LABEL that "blkid -p" reports, and the partitions, PARTUUIDs and
# PARTLABELs that sfdisk reads. UR_BIN=/path probes with another build of
# unionroot (sanitizers); default: $BUILD/unionroot.
# shellcheck source=tests/lib.sh disable=SC1091
source "$(dirname "$0")/../lib.sh"

[[ $BUILD == /* ]] || BUILD=$ROOT_DIR/$BUILD
probe_cmd=("${UR_BIN:-$BUILD/unionroot}" probe)

if ! command -v blkid >/dev/null; then
	skip probe-vs-blkid "blkid not installed (util-linux)"
	exit 0
fi
if [ ! -x "${probe_cmd[0]}" ]; then
	skip probe-vs-blkid "${probe_cmd[0]} not built"
	exit 0
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/probe-vs-blkid.XXXXXX")
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/tree/dir"
echo hello >"$T/tree/dir/file"

have() { command -v "$1" >/dev/null; }

# blkid_field FILE NAME: the value blkid -p reports (export form unescaped).
blkid_field() {
	local line
	while IFS= read -r line; do
		if [[ $line == "$2="* ]]; then
			line=${line#*=}
			printf '%s' "${line//\\/}"
			return
		fi
	done < <(blkid -p -o export "$1" 2>/dev/null)
}

# probe_field LINE NAME: NAME="value" from one line of our output.
probe_field() {
	local re="[ :]$2=\"(([^\"\\\\]|\\\\.)*)\""
	if [[ $1 =~ $re ]]; then
		local v=${BASH_REMATCH[1]}
		v=${v//\\\"/\"}
		printf '%s' "${v//\\\\/\\}"
	fi
}

# check_fs NAME FILE [EXPECT_TYPE]: compares TYPE, UUID and LABEL.
check_fs() {
	local name=$1 img=$2 line f ours theirs why=""
	line=$("${probe_cmd[@]}" "$img" 2>"$T/err" | grep -m1 ' TYPE=')
	if [ -z "$(blkid_field "$img" TYPE)" ]; then
		fail "$name" "blkid does not recognize the image either"
		return
	fi
	for f in TYPE UUID LABEL; do
		ours=$(probe_field "$line" "$f")
		theirs=$(blkid_field "$img" "$f")
		[ "$ours" == "$theirs" ] || why+="$f \"$ours\" != blkid \"$theirs\"; "
	done
	if [ -n "$3" ] && [ "$(probe_field "$line" TYPE)" != "$3" ]; then
		why+="TYPE is not $3; "
	fi
	if [ -z "$why" ]; then
		pass "$name"
	else
		fail "$name" "${why%; }"
	fi
}

# check_parts NAME IMG: every partition sfdisk lists, with start, size and
# (GPT) PARTUUID/PARTLABEL, or (MBR) the PARTUUID made of the disk id.
check_parts() {
	local name=$1 img=$2 why="" line n start size uuid pname ours disk_id="" want=0 got
	local re='^.*[^0-9]([0-9]+) : start= *([0-9]+), size= *([0-9]+)(.*)$'
	"${probe_cmd[@]}" "$img" >"$T/ours" 2>"$T/err"
	while IFS= read -r line; do
		if [[ $line == label-id:* ]]; then
			disk_id=${line#label-id: }
			continue
		fi
		[[ $line =~ $re ]] || continue
		n=${BASH_REMATCH[1]} start=${BASH_REMATCH[2]} size=${BASH_REMATCH[3]}
		rest=${BASH_REMATCH[4]}
		want=$((want + 1))
		uuid="" pname=""
		[[ $rest =~ uuid=([0-9A-Fa-f-]+) ]] && uuid=${BASH_REMATCH[1],,}
		# sfdisk -d writes non-ASCII bytes of names as \xNN
		[[ $rest =~ name=\"([^\"]*)\" ]] && pname=$(printf '%b' "${BASH_REMATCH[1]}")
		if [[ $disk_id == 0x* ]]; then
			uuid=$(printf '%08x-%02x' "$disk_id" "$n")
		fi
		ours=$(grep -m1 ": partition $n " "$T/ours")
		if [ -z "$ours" ]; then
			why+="partition $n missing; "
			continue
		fi
		[[ $ours == *" start=$start size=$size"* ]] ||
			why+="partition $n: \"$ours\" wants start=$start size=$size; "
		[ "$(probe_field "$ours" PARTUUID)" == "$uuid" ] ||
			why+="partition $n: PARTUUID \"$(probe_field "$ours" PARTUUID)\" != \"$uuid\"; "
		[ "$(probe_field "$ours" PARTLABEL)" == "$pname" ] ||
			why+="partition $n: PARTLABEL \"$(probe_field "$ours" PARTLABEL)\" != \"$pname\"; "
	done < <(sfdisk -d "$img" 2>/dev/null)
	got=$(grep -c ': partition ' "$T/ours")
	[ "$want" -gt 0 ] || why+="sfdisk lists no partitions; "
	[ "$got" == "$want" ] || why+="$got partitions listed, sfdisk has $want; "
	if [ -z "$why" ]; then
		pass "$name"
	else
		fail "$name" "${why%; }"
	fi
}

# mk NAME TOOL [PACKAGE]: 0 when TOOL exists, else a SKIP line.
mk() {
	if have "$2"; then
		return 0
	fi
	skip "$1" "$2 not installed${3:+ ($3)}"
	return 1
}

# ---- squashfs ----
if mk probe/squashfs mksquashfs squashfs-tools; then
	mksquashfs "$T/tree" "$T/sq.img" -quiet -noappend >/dev/null 2>&1 &&
		check_fs probe/squashfs "$T/sq.img" squashfs
fi

# ---- ext ----
if mk probe/ext mke2fs e2fsprogs; then
	for t in ext2 ext3 ext4; do
		truncate -s 16M "$T/$t.img"
		mke2fs -q -F -t "$t" -L "lbl-$t" "$T/$t.img" >/dev/null 2>&1 &&
			check_fs "probe/$t" "$T/$t.img" "$t"
	done
	truncate -s 16M "$T/ext4nocsum.img"
	mke2fs -q -F -t ext4 -O ^metadata_csum,^64bit -L "no csum" "$T/ext4nocsum.img" >/dev/null 2>&1 &&
		check_fs probe/ext4-without-metadata-csum "$T/ext4nocsum.img" ext4
	truncate -s 16M "$T/ext2big.img"
	mke2fs -q -F -t ext2 -O extent -L "ext2+extents" "$T/ext2big.img" >/dev/null 2>&1 &&
		check_fs probe/ext2-with-extents-is-ext4 "$T/ext2big.img" ext4
	truncate -s 16M "$T/jbd.img"
	mke2fs -q -F -O journal_dev -L journal "$T/jbd.img" >/dev/null 2>&1 &&
		check_fs probe/jbd "$T/jbd.img" jbd
fi

# ---- iso9660 ----
if mk probe/iso9660 xorriso; then
	xorriso -as mkisofs -quiet -J -V "UNIONROOT_LIVE" -o "$T/iso.img" "$T/tree" >/dev/null 2>&1 &&
		check_fs probe/iso9660-joliet "$T/iso.img" iso9660
	xorriso -as mkisofs -quiet -J -V "Long Live Medium Label 2024 x" -o "$T/iso2.img" "$T/tree" >/dev/null 2>&1 &&
		check_fs probe/iso9660-joliet-long-label "$T/iso2.img" iso9660
	xorriso -as mkisofs -quiet -V "PLAIN_ISO" -o "$T/iso3.img" "$T/tree" >/dev/null 2>&1 &&
		check_fs probe/iso9660-no-joliet "$T/iso3.img" iso9660
fi

# ---- vfat ----
if mk probe/vfat mkfs.vfat dosfstools; then
	for bits in 12 16 32; do
		case $bits in 12) kib=1024 ;; 16) kib=32768 ;; 32) kib=65536 ;; esac
		rm -f "$T/fat$bits.img"
		mkfs.vfat -C -F "$bits" -n "FAT$bits LBL" "$T/fat$bits.img" "$kib" >/dev/null 2>&1 &&
			check_fs "probe/vfat-fat$bits" "$T/fat$bits.img" vfat
	done
	rm -f "$T/fatnn.img"
	mkfs.vfat -C -F 16 "$T/fatnn.img" 32768 >/dev/null 2>&1 &&
		check_fs probe/vfat-without-label "$T/fatnn.img" vfat
	# Boot-sector label differs from the root-directory entry: blkid takes
	# the root directory's.
	rm -f "$T/fatdiff.img"
	if mkfs.vfat -C -F 16 -n ROOTDIR "$T/fatdiff.img" 32768 >/dev/null 2>&1; then
		printf 'BOOTSECTOR ' | dd of="$T/fatdiff.img" bs=1 seek=43 conv=notrunc status=none
		check_fs probe/vfat-root-dir-label-wins "$T/fatdiff.img" vfat
	fi
	rm -f "$T/fatdiff32.img"
	if mkfs.vfat -C -F 32 -n ROOTDIR32 "$T/fatdiff32.img" 65536 >/dev/null 2>&1; then
		printf 'BOOTSECTOR ' | dd of="$T/fatdiff32.img" bs=1 seek=71 conv=notrunc status=none
		check_fs probe/vfat32-root-dir-label-wins "$T/fatdiff32.img" vfat
	fi
fi

# ---- exfat ----
if mk probe/exfat mkfs.exfat exfatprogs; then
	for cl in 512 4096 32K; do
		rm -f "$T/exfat.img"
		truncate -s 64M "$T/exfat.img"
		mkfs.exfat -c "$cl" -L "Stick $cl" "$T/exfat.img" >/dev/null 2>&1 &&
			check_fs "probe/exfat-cluster-$cl" "$T/exfat.img" exfat
	done
	rm -f "$T/exfat.img"
	truncate -s 8M "$T/exfat.img"
	mkfs.exfat "$T/exfat.img" >/dev/null 2>&1 && check_fs probe/exfat-without-label "$T/exfat.img" exfat
	rm -f "$T/exfat.img"
	truncate -s 8M "$T/exfat.img"
	mkfs.exfat --pack-bitmap -L packed "$T/exfat.img" >/dev/null 2>&1 &&
		check_fs probe/exfat-packed-bitmap "$T/exfat.img" exfat
fi

# ---- f2fs ----
if mk probe/f2fs mkfs.f2fs f2fs-tools; then
	truncate -s 64M "$T/f2fs.img"
	mkfs.f2fs -q -f -l "f2fs label" "$T/f2fs.img" >/dev/null 2>&1 &&
		check_fs probe/f2fs "$T/f2fs.img" f2fs
	truncate -s 64M "$T/f2fscs.img"
	mkfs.f2fs -q -f -O sb_checksum -l "f2fs csum" "$T/f2fscs.img" >/dev/null 2>&1 &&
		check_fs probe/f2fs-sb-checksum "$T/f2fscs.img" f2fs
fi

# ---- erofs ----
if mk probe/erofs mkfs.erofs erofs-utils; then
	# erofs-utils 1.5 (Debian 12) has no -L; newer ones set a label.
	if mkfs.erofs -L erofs-lbl "$T/erofs-l.img" "$T/tree" >/dev/null 2>&1; then
		check_fs probe/erofs-label "$T/erofs-l.img" erofs
	else
		skip probe/erofs-label "this mkfs.erofs cannot set a label"
	fi
	mkfs.erofs "$T/erofs.img" "$T/tree" >/dev/null 2>&1 &&
		check_fs probe/erofs "$T/erofs.img" erofs
fi

# ---- btrfs ----
if mk probe/btrfs mkfs.btrfs btrfs-progs; then
	truncate -s 128M "$T/btrfs.img"
	mkfs.btrfs -q -f -L "btrfs label" "$T/btrfs.img" >/dev/null 2>&1 &&
		check_fs probe/btrfs "$T/btrfs.img" btrfs
fi

# ---- xfs ----
if mk probe/xfs mkfs.xfs xfsprogs; then
	truncate -s 320M "$T/xfs.img"
	mkfs.xfs -q -f -L xfs-lbl "$T/xfs.img" >/dev/null 2>&1 &&
		check_fs probe/xfs "$T/xfs.img" xfs
	# version 4 (no CRC): deprecated, some xfsprogs refuse to make it
	if mkfs.xfs -q -f -m crc=0 -L xfs-v4 "$T/xfs.img" >/dev/null 2>&1; then
		check_fs probe/xfs-v4 "$T/xfs.img" xfs
	else
		skip probe/xfs-v4 "this mkfs.xfs no longer makes version 4"
	fi
	rm -f "$T/xfs.img"
fi

# ---- LUKS ----
if mk probe/luks cryptsetup cryptsetup-bin; then
	printf 'secret' >"$T/key"
	truncate -s 4M "$T/luks1.img"
	cryptsetup luksFormat -q --type luks1 --pbkdf-force-iterations 1000 \
		--key-file "$T/key" "$T/luks1.img" >/dev/null 2>&1 &&
		check_fs probe/luks1 "$T/luks1.img" crypto_LUKS
	truncate -s 24M "$T/luks2.img"
	cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
		--label "secret data" --key-file "$T/key" "$T/luks2.img" >/dev/null 2>&1 &&
		check_fs probe/luks2 "$T/luks2.img" crypto_LUKS
	# a wiped primary header: blkid and we find the secondary one
	if [ -s "$T/luks2.img" ]; then
		dd if=/dev/zero of="$T/luks2.img" bs=4096 count=1 conv=notrunc status=none
		check_fs probe/luks2-secondary-header "$T/luks2.img" crypto_LUKS
	fi
fi

# ---- partition tables ----
if mk probe/gpt sfdisk fdisk; then
	truncate -s 64M "$T/gpt.img"
	sfdisk -q "$T/gpt.img" >/dev/null 2>&1 <<-'EOF'
		label: gpt
		size=8M, type=U, name="EFI system"
		size=16M, type=L, name="root fs"
		size=8M, type=L
		type=L, name="Dätä ✓ ünïcode"
	EOF
	check_parts probe/gpt-partitions "$T/gpt.img"

	truncate -s 64M "$T/mbr.img"
	sfdisk -q "$T/mbr.img" >/dev/null 2>&1 <<-'EOF'
		label: dos
		label-id: 0x1234abcd
		size=8M, type=83
		size=8M, type=83, bootable
		size=8M, type=c
		type=5
		size=8M, type=83
		size=8M, type=83
		type=83
	EOF
	check_parts probe/mbr-primary-and-logical "$T/mbr.img"
fi
