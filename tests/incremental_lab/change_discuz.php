<?php
// One reply (to the thread of board REPLY_BOARD whose last post is the oldest: the last row of the
// board's last page, so the reply moves it to the top of page 1) and one new thread in board
// NEW_BOARD, both by USER and dated now, through the models forum.php?mod=post uses
// (model_forum_post::newreply, model_forum_thread::newthread: they update the thread's and the
// forum's counters and last post), as the lab's seed.php posts.
//   usage (as www-data, with the site's PHP):  php change_discuz.php DISCUZ_ROOT REPLY_BOARD NEW_BOARD TAG [USER=bob]
// REPLY_BOARD / NEW_BOARD: a substring of the board's name. Prints one JSON line.
// discuz_application::init() unsets non-superglobal globals: arguments are kept in constants.
define('ACC_ROOT', rtrim($argv[1], '/'));
define('ACC_REPLY_BOARD', $argv[2]);
define('ACC_NEW_BOARD', $argv[3]);
define('ACC_TAG', $argv[4]);
define('ACC_USER', $argv[5] ?? 'bob');
chdir(ACC_ROOT);
$_SERVER['REMOTE_ADDR'] = '127.0.0.1';
$_SERVER['REQUEST_METHOD'] = 'GET';
$_SERVER['HTTP_HOST'] = '127.0.0.1:' . (getenv('DISCUZ_PORT') ?: '18089');
$_SERVER['SERVER_PORT'] = getenv('DISCUZ_PORT') ?: '18089';
$_SERVER['SCRIPT_FILENAME'] = ACC_ROOT . '/forum.php';
$_SERVER['DOCUMENT_ROOT'] = ACC_ROOT;
$_SERVER['HTTP_USER_AGENT'] = 'Mozilla/5.0 (X11; Linux x86_64) incremental-lab';
$_SERVER['SCRIPT_NAME'] = $_SERVER['PHP_SELF'] = '/forum.php';
$_SERVER['REQUEST_URI'] = '/forum.php';
define('APPTYPEID', 2);
define('CURSCRIPT', 'forum');
require ACC_ROOT . '/source/class/class_core.php';
$discuz = C::app();
$discuz->init_cron = false;
$discuz->init();
require_once libfile('function/forum');
require_once libfile('function/post');

function become($uid) {  // what discuz_application::_init_user() sets up for a logged-in member
    global $_G;
    $user = getuserbyuid($uid, 1);
    $_G['member'] = $user;
    foreach (['uid', 'username', 'adminid', 'groupid'] as $k) { $_G[$k] = $user[$k]; }
    loadcache(['usergroup_' . $user['groupid'], 'usergroups']);
    $_G['group'] = $_G['cache']['usergroup_' . $user['groupid']];
}
function board_of($name) {
    $b = DB::fetch_first("SELECT fid, name FROM %t WHERE type='forum' AND name LIKE %s", ['forum_forum', '%' . $name . '%']);
    if (!$b) { fwrite(STDERR, "no board $name\n"); exit(1); }
    return $b;
}
$u = DB::fetch_first('SELECT uid, username FROM %t WHERE username=%s', ['common_member', ACC_USER]);
become($u['uid']);
$tpp = (int)$_G['setting']['topicperpage'];
$rb = board_of(ACC_REPLY_BOARD);
$threads = DB::fetch_all('SELECT tid, subject FROM %t WHERE fid=%d AND displayorder>=0 ORDER BY displayorder DESC, lastpost DESC, tid DESC',
                         ['forum_thread', $rb['fid']]);
$target = end($threads);
$row = count($threads);
$_G['forum'] = $_G['thread'] = [];
$m = new model_forum_post((int)$target['tid']);
$m->newreply(['subject' => '', 'message' => 'Incremental lab reply ' . ACC_TAG . ', posted ' . gmdate('Y-m-d H:i:s', TIMESTAMP)
              . ' UTC. 增量抓取测试回复。', 'special' => 0, 'usesig' => 1, 'clientip' => '127.0.0.1']);
$reply_pid = (int)$m->pid;
$nb = board_of(ACC_NEW_BOARD);
$_G['forum'] = $_G['thread'] = [];
$m = new model_forum_thread((int)$nb['fid']);
$m->newthread(['subject' => dhtmlspecialchars('Incremental lab thread ' . ACC_TAG . ' 增量测试'),
               'message' => 'A new thread for the incremental lab ' . ACC_TAG . ', posted ' . gmdate('Y-m-d H:i:s', TIMESTAMP) . ' UTC.',
               'typeid' => 0, 'sortid' => 0, 'special' => 0, 'publishdate' => TIMESTAMP, 'save' => 0, 'usesig' => 1,
               'allownoticeauthor' => 1, 'clientip' => '127.0.0.1']);
if (!$reply_pid || !$m->tid) { fwrite(STDERR, "posting failed\n"); exit(1); }
echo json_encode([
    'reply' => ['thread_id' => (string)$target['tid'], 'title' => $target['subject'], 'board' => $rb['name'],
                'board_id' => (string)$rb['fid'], 'row_before' => $row, 'threads_in_board' => count($threads),
                'board_page_before' => intdiv($row - 1, $tpp) + 1, 'post_id' => (string)$reply_pid],
    'new_thread' => ['thread_id' => (string)$m->tid, 'board' => $nb['name'], 'board_id' => (string)$nb['fid'],
                     'post_ids' => [(string)$m->pid]],
    'time' => gmdate('c', TIMESTAMP), 'user' => $u['username']], JSON_UNESCAPED_UNICODE), "\n";
