<?php
// Makes one MyBB 1.8 forum members-only as ACP > Forums > Permissions does for the Guests
// group (gid 1): a forumpermissions row with canview/canviewthreads off, then
// $cache->update_forumpermissions() (what admin/modules/forum/management.php calls).
// usage: runuser -u www-data -- php mybb_members_only.php MYBB_ROOT FORUM_ID
define('IN_MYBB', 1);
$root = rtrim($argv[1], '/');
$fid = (int)$argv[2];
chdir($root);
$_SERVER['REMOTE_ADDR'] = '127.0.0.1';
$_SERVER['REQUEST_METHOD'] = 'GET';
require_once $root . '/inc/init.php';
$db->delete_query('forumpermissions', "fid = $fid AND gid = 1");
$db->insert_query('forumpermissions', ['fid' => $fid, 'gid' => 1, 'canview' => 0,
    'canviewthreads' => 0, 'canonlyviewownthreads' => 0, 'candlattachments' => 0,
    'canpostthreads' => 0, 'canpostreplys' => 0, 'canpostattachments' => 0, 'canratethreads' => 0,
    'canpostpolls' => 0, 'canvotepolls' => 0, 'cansearch' => 0]);
$cache->update_forumpermissions();
fwrite(STDERR, "[mybb] forum $fid: no view for guests\n");
