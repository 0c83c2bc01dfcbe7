<?php
// What grow.php and reply.php share: phpBB booted from the command line as a guest request
// (as the engine lab's seed.php does), posting functions loaded, and row() for one SQL row.
// The caller sets $root (the phpBB folder) and $script (its name, for the request's URI).
define('IN_PHPBB', true);
$phpbb_root_path = $root . '/';
$phpEx = 'php';
chdir($root);
$_SERVER['REMOTE_ADDR'] = '127.0.0.1';
$_SERVER['REQUEST_METHOD'] = 'GET';
$_SERVER['HTTP_HOST'] = '127.0.0.1';
$_SERVER['SERVER_NAME'] = '127.0.0.1';
$_SERVER['REQUEST_URI'] = '/' . $script;
$_SERVER['SCRIPT_NAME'] = '/' . $script;
require $phpbb_root_path . 'common.php';
require_once $phpbb_root_path . 'includes/functions_posting.php';
require_once $phpbb_root_path . 'includes/functions_admin.php';
$user->session_begin(false);
$auth->acl($user->data);
$user->setup(['posting']);

function row($sql) { global $db; $r = $db->sql_query($sql); $row = $db->sql_fetchrow($r); $db->sql_freeresult($r); return $row; }
