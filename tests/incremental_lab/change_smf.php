<?php
// One reply (to the topic of board REPLY_BOARD whose last post is the oldest: the last row of the
// board's last page, so the reply moves it to the top of page 1) and one new topic in board
// NEW_BOARD, both by USER and dated now, through SMF's createPost() on a body prepared as Post2()
// does (createPost updates the topic's and the board's counters and last message).
//   usage (as www-data, with the site's PHP):  php change_smf.php SMF_ROOT REPLY_BOARD NEW_BOARD TAG [USER=bob]
// REPLY_BOARD / NEW_BOARD: a substring of the board's name. Prints one JSON line.
$root = rtrim($argv[1], '/');
[$reply_board, $new_board, $tag] = [$argv[2], $argv[3], $argv[4]];
$username = $argv[5] ?? 'bob';
chdir($root);
$_SERVER['REMOTE_ADDR'] = '127.0.0.1';
$_SERVER['REQUEST_METHOD'] = 'GET';
$_SERVER['REQUEST_URI'] = '/SSI.php';
$ssi_guest_access = true;
require $root . '/SSI.php';
require_once $sourcedir . '/Subs-Post.php';

function one($sql, $params = []) { global $smcFunc; return $smcFunc['db_fetch_assoc']($smcFunc['db_query']('', $sql, $params)); }
function board_of($name) {
    $b = one('SELECT id_board, name FROM {db_prefix}boards WHERE name LIKE {string:n}', ['n' => "%$name%"]);
    if (!$b) { fwrite(STDERR, "no board $name\n"); exit(1); }
    return $b;
}
$member = one('SELECT id_member, member_name, email_address FROM {db_prefix}members WHERE member_name = {string:n}', ['n' => $username]);
$user_info = array_merge($user_info, ['id' => (int)$member['id_member'], 'is_guest' => false, 'username' => $username,
                                      'name' => $username, 'groups' => [0], 'query_see_board' => '1=1',
                                      'query_wanna_see_board' => '1=1']);
$tpp = (int)$modSettings['defaultMaxTopics'];
$now = time();
$post = function ($subject, $text, $topic, $board) use ($smcFunc, $member, $username, $now) {
    $subject = strtr($smcFunc['htmlspecialchars']($subject), ["\r" => '', "\n" => '', "\t" => '']);
    $body = $smcFunc['htmlspecialchars']($text, ENT_QUOTES);
    preparsecode($body);
    $msgOptions = ['subject' => $subject, 'body' => $body, 'icon' => 'xx', 'smileys_enabled' => true,
                   'approved' => true, 'poster_time' => $now, 'send_notifications' => false, 'attachments' => []];
    $topicOptions = ['id' => $topic, 'board' => $board, 'mark_as_read' => true, 'is_approved' => true,
                     'poll' => null, 'lock_mode' => null, 'sticky_mode' => null];
    $posterOptions = ['id' => (int)$member['id_member'], 'name' => $username, 'email' => $member['email_address'],
                      'ip' => '127.0.0.1', 'update_post_count' => true];
    if (!createPost($msgOptions, $topicOptions, $posterOptions)) { fwrite(STDERR, "createPost failed\n"); exit(1); }
    return [(int)$topicOptions['id'], (int)$msgOptions['id']];
};

$rb = board_of($reply_board);
$topics = [];
$r = $smcFunc['db_query']('', 'SELECT t.id_topic, m.subject FROM {db_prefix}topics t JOIN {db_prefix}messages m ON m.id_msg = t.id_first_msg
    WHERE t.id_board = {int:b} AND t.approved = 1 ORDER BY t.is_sticky DESC, t.id_last_msg DESC', ['b' => $rb['id_board']]);
while ($row = $smcFunc['db_fetch_assoc']($r)) { $topics[] = $row; }
$target = end($topics);
$row = count($topics);
[, $reply_id] = $post('Re: ' . $target['subject'], "Incremental lab reply $tag, posted " . gmdate('Y-m-d H:i:s', $now)
                      . " UTC. 增量抓取测试回复。", (int)$target['id_topic'], (int)$rb['id_board']);
$nb = board_of($new_board);
[$new_tid, $new_pid] = $post("Incremental lab thread $tag 增量测试", "A new thread for the incremental lab $tag, posted "
                             . gmdate('Y-m-d H:i:s', $now) . " UTC.", 0, (int)$nb['id_board']);
echo json_encode([
    'reply' => ['thread_id' => (string)$target['id_topic'], 'title' => $target['subject'], 'board' => $rb['name'],
                'board_id' => (string)$rb['id_board'], 'row_before' => $row, 'threads_in_board' => count($topics),
                'board_page_before' => intdiv($row - 1, $tpp) + 1, 'post_id' => (string)$reply_id],
    'new_thread' => ['thread_id' => (string)$new_tid, 'board' => $nb['name'], 'board_id' => (string)$nb['id_board'],
                     'post_ids' => [(string)$new_pid]],
    'time' => gmdate('c', $now), 'user' => $username], JSON_UNESCAPED_UNICODE), "\n";
