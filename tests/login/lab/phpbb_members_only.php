<?php
// Makes one phpBB 3.3 board members-only through phpBB's own admin code: what ACP >
// Forum permissions > (Guests, Bots) > "No access" does, auth_admin::acl_delete() of the
// GUESTS and BOTS groups' permissions on that forum (the copy of board 2's that the lab's
// seed gave it), then the permission caches cleared.
// usage: runuser -u www-data -- php phpbb_members_only.php PHPBB_ROOT FORUM_ID
define('IN_PHPBB', true);
$root = rtrim($argv[1], '/');
$forum_id = (int)$argv[2];
$phpbb_root_path = $root . '/';
$phpEx = 'php';
chdir($root);
$_SERVER['REMOTE_ADDR'] = '127.0.0.1';
$_SERVER['REQUEST_METHOD'] = 'GET';
$_SERVER['HTTP_HOST'] = '127.0.0.1';
$_SERVER['SERVER_NAME'] = '127.0.0.1';
$_SERVER['REQUEST_URI'] = '/members_only.php';
$_SERVER['SCRIPT_NAME'] = '/members_only.php';
require $phpbb_root_path . 'common.php';
require_once $phpbb_root_path . 'includes/acp/auth.php';
$user->session_begin(false);
$auth->acl($user->data);
$groups = [];
$result = $db->sql_query('SELECT group_id FROM ' . GROUPS_TABLE . " WHERE group_name IN ('GUESTS', 'BOTS')");
while ($row = $db->sql_fetchrow($result)) { $groups[] = (int)$row['group_id']; }
$db->sql_freeresult($result);
$auth_admin = new auth_admin();
$auth_admin->acl_delete('group', $groups, [$forum_id]);
$auth_admin->acl_clear_prefetch();
$cache->purge();
fwrite(STDERR, "[phpbb] forum $forum_id: no access for groups " . implode(',', $groups) . "\n");
