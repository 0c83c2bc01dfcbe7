<?php
// One reply (to the thread of board REPLY_BOARD whose last post is the oldest, i.e. the last row
// of the board's last page, so the reply moves it to the top of page 1) and one new thread in
// board NEW_BOARD, both by USER and dated now, through MyBB's PostDataHandler (what newreply.php
// and newthread.php call: it updates the thread's and the forum's counters and last post).
//   usage (as www-data, with the site's PHP):  php change_mybb.php MYBB_ROOT REPLY_BOARD NEW_BOARD TAG [USER=bob]
// REPLY_BOARD / NEW_BOARD: a substring of the board's name. Prints one JSON line.
$root = rtrim($argv[1], '/');
[$reply_board, $new_board, $tag] = [$argv[2], $argv[3], $argv[4]];
$username = $argv[5] ?? 'bob';
define('IN_MYBB', 1);
define('NO_ONLINE', 1);
define('THIS_SCRIPT', 'incremental_lab.php');
define('MYBB_ROOT', $root . '/');
chdir($root);
$_SERVER['REMOTE_ADDR'] = '127.0.0.1';
$_SERVER['REQUEST_METHOD'] = 'GET';
require_once MYBB_ROOT . 'inc/init.php';
require_once MYBB_ROOT . 'inc/class_language.php';
$lang = new MyLanguage;
$lang->set_path(MYBB_ROOT . 'inc/languages');
$lang->set_language('english');
$lang->load('global');
$lang->load('messages');
require_once MYBB_ROOT . 'inc/functions_post.php';
require_once MYBB_ROOT . 'inc/functions_user.php';
require_once MYBB_ROOT . 'inc/datahandlers/post.php';
require_once MYBB_ROOT . 'inc/class_session.php';
$session = new session;
$session->ipaddress = '127.0.0.1';
$session->packedip = my_inet_pton('127.0.0.1');

function one($sql) { global $db; return $db->fetch_array($db->query($sql)); }
function fid_of($name) {
    global $db;
    $r = one("SELECT fid, name FROM " . TABLE_PREFIX . "forums WHERE type='f' AND name LIKE '%" . $db->escape_string($name) . "%'");
    if (!$r) { fwrite(STDERR, "no board $name\n"); exit(1); }
    return $r;
}
$user = one("SELECT uid, username FROM " . TABLE_PREFIX . "users WHERE username='" . $db->escape_string($username) . "'");
$mybb->user = get_user($user['uid']);
$mybb->usergroup = usergroup_permissions($mybb->user['usergroup']);
$tpp = (int)$mybb->settings['threadsperpage'];

$rb = fid_of($reply_board);
$threads = [];
$q = $db->query("SELECT tid, subject, lastpost, replies FROM " . TABLE_PREFIX . "threads WHERE fid={$rb['fid']} AND visible=1 ORDER BY sticky DESC, lastpost DESC, tid DESC");
while ($t = $db->fetch_array($q)) { $threads[] = $t; }
$target = end($threads);
$row = count($threads);
$now = TIME_NOW;
$ph = new PostDataHandler('insert');
$ph->action = 'post';
$ph->set_data(['tid' => $target['tid'], 'fid' => $rb['fid'], 'subject' => 'RE: ' . $target['subject'],
    'uid' => $user['uid'], 'username' => $user['username'], 'ipaddress' => '127.0.0.1', 'replyto' => 0,
    'message' => "Incremental lab reply $tag, posted " . gmdate('Y-m-d H:i:s', $now) . " UTC. 增量抓取测试回复。",
    'options' => ['signature' => 0, 'subscriptionmethod' => '', 'disablesmilies' => 0]]);
if (!$ph->validate_post()) { fwrite(STDERR, json_encode($ph->get_friendly_errors()) . "\n"); exit(1); }
$reply = $ph->insert_post();

$nb = fid_of($new_board);
$ph = new PostDataHandler('insert');
$ph->action = 'thread';
$ph->set_data(['fid' => $nb['fid'], 'subject' => "Incremental lab thread $tag 增量测试",
    'uid' => $user['uid'], 'username' => $user['username'], 'ipaddress' => '127.0.0.1', 'icon' => 0, 'prefix' => 0,
    'message' => "A new thread for the incremental lab $tag, posted " . gmdate('Y-m-d H:i:s', $now) . " UTC.",
    'options' => ['signature' => 0, 'subscriptionmethod' => '', 'disablesmilies' => 0]]);
if (!$ph->validate_thread()) { fwrite(STDERR, json_encode($ph->get_friendly_errors()) . "\n"); exit(1); }
$thread = $ph->insert_thread();
echo json_encode([
    'reply' => ['thread_id' => (string)$target['tid'], 'title' => $target['subject'], 'board' => $rb['name'],
                'board_id' => (string)$rb['fid'], 'row_before' => $row, 'threads_in_board' => count($threads),
                'board_page_before' => intdiv($row - 1, $tpp) + 1, 'post_id' => (string)$reply['pid']],
    'new_thread' => ['thread_id' => (string)$thread['tid'], 'board' => $nb['name'], 'board_id' => (string)$nb['fid'],
                     'post_ids' => [(string)$thread['pid']]],
    'time' => gmdate('c', $now), 'user' => $user['username']], JSON_UNESCAPED_UNICODE), "\n";
